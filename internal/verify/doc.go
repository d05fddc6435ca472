// Package verify is the check CI requires on every change to a fleet
// repository (`strata verify --base origin/main`): it makes the gates of the
// sequence enforceable, not a flag anyone may pass.
//
// It compares the fleet at a base revision (read from Git's object store by
// package diff) with the fleet after the change (the working tree), renders
// both in memory (diff.Compare, which skips targets whose inputs are equal)
// and judges the change by promote's rules (promote.ReviewChange), with
// these findings:
//
//   - gap: a patch is somewhere while a target before it in rollout order
//     does not have it (a patch created straight in production, a
//     promotion that skipped a sector);
//   - gate: a patch entered a node marked promotion: manual without an
//     approval recorded in the change: in the patch's metadata
//     (metadata.approvals, which `strata promote --approve` writes; see
//     promote.Approval) or in a commit trailer of the change
//     ("Approved-by: Name <email> for NODE"; without "for NODE" it
//     approves every gate the commit's change reaches);
//   - edited-in-gate / removed-in-gate: a patch copy inside a manual gate
//     changed or removed in place (not by promotion), without approval;
//   - outside-patch: a change to anything but patches (values.yaml, an
//     override, defaults.yaml, config.yaml such as a pin, the templates
//     chart) reaches a target behind a manual gate without approval. To tell
//     it apart from the patches' part of the change, the fleet after the
//     change but with the patches of the base is rendered too: a target that
//     differs there from the base is reached by the other files; a pin
//     moved there is named by the revisions it moves (the root's, and
//     config.yaml's named revisions), from and to;
//   - frozen: a target whose output changes is under a node frozen in
//     config/freezes.yaml (package freeze) after the change, or at the
//     base when the change lifts the freeze along with the step.
//
// Approvals count only when the change adds them: one that the base already
// records approved an earlier change. The result is data (findings with
// file, line, target and rule); package cli prints it and exits non-zero.
package verify
