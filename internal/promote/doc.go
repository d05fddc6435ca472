// Package promote moves a patch progressively through the sequence.
//
// Prepare computes, from the loaded fleet and without touching the disk, what
// one promotion of a patch does, with the reference's semantics:
//
//  1. find the patch's locations in rollout (walk) order; the last one is
//     the latest;
//  2. refuse gaps: every full-depth target before the latest location must
//     already have the patch (at its level or above);
//  3. copy the patch to the next node in walk order that does not have it,
//     skipping nodes above the promotion level (default config
//     promotion.level, else the second dimension); entering a node marked
//     promotion: manual needs approval (a copy above a gate enters it too),
//     recorded, when an approver is given, in the new copy's metadata
//     (metadata.approvals: the gate, who, when; see [Approval] and
//     [RecordApproval]) so that the change carries it and CI can check it;
//     where config.yaml's rollout waves: apply (fleet.Config.WavesAt), the
//     step enters the next nodes of its wave at once, every copy the same
//     ([Plan].Wave, wave.go): the group's nodes at the promotion level
//     that the patch covers are counted, and the step fills the first wave
//     that count does not reach (the plan stays a function of where the
//     patch is; a wave begun by hand is completed); [WaveOf] is the wave
//     a patch is in, for status;
//  4. coalesce: once every target under a node has the patch, the copies
//     under it become one patch at that node;
//  5. integrate: once every first-dimension node has it, the patch is merged
//     into values.yaml (comments, key order and quoting kept) and removed;
//     what its metadata said (description, owner, ticket, every approval of
//     its copies) is appended to the component's history.yaml (history.go,
//     [Fold]), which the loader never reads to render.
//
// A plan carries the patch's metadata ([Plan].Meta), and [CommitMessage]
// is the message of a step's commit (what moved where, how many targets'
// rendered output changed, the metadata, the Approved-by trailers), the
// same for strata promote --commit and strata rollout.
//
// Beyond the reference it never loses a change: copies that differ are not
// coalesced; a coalescing or an integration that would change any target's
// values (because an override below the new location sets the same field)
// is refused, and every such conflict of one promotion is listed at once
// (each node whose copies differ, naming every differing copy; each field,
// value and winning override with the targets it would change); and the
// plan's file operations are applied through a journal,
// writes before removals, so that a crash at any point leaves every patch's
// content on disk and the next run completes the promotion. Each operation
// records the digest of the file it replaces or removes: a file edited since
// the plan was made is never overwritten or removed.
//
// The journal (journal.go) is local state of the checkout, never part of
// the repository: it lives in package localstate's directory for the
// checkout (JournalName), so no commit or pull request can bring one, and
// a file at the old place inside the repository (CommittedJournal) is
// never read. It records the promotion (cluster type, component, patch) and
// its stage: StageFiles while config/ is being changed, StageRender once
// config/ is promoted and until rendered/ is re-rendered (Finish). A
// promotion of another patch is refused while one is recorded
// (*PendingError); Resume completes the file operations; Abandon drops the
// record.
//
// The plan is data; package cli prints it. Apply performs it.
package promote
