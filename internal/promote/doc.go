// Package promote moves a patch progressively through the sequence.
//
// [Prepare] computes, from the loaded fleet and without touching the disk,
// what one promotion of a patch does: a [Plan] (data; package cli prints
// it) that refuses gaps, copies the patch to the next node (a wave of
// nodes where config.yaml's rollout waves apply, wave.go), enters manual
// gates with recorded approvals ([RecordApproval]), coalesces copies
// (coalesce.go) and folds the patch into values.yaml at the end
// (integrate.go, history.go), never losing a change.
//
// [Apply] performs a plan through a journal kept in the checkout's local
// state (journal.go): [Pending], [Resume], [Abandon], [Finish];
// *[PendingError] refuses a promotion of another patch while one is
// recorded. [CommitMessage] is the message of a step's commit, the same for
// strata promote --commit and strata rollout (package action's Step runs
// the step).
//
// docs/promote.md describes the steps of a promotion, what it refuses and
// the journal in full.
package promote
