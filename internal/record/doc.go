// Package record is delivery's record: what strata's rollout did, written
// by strata as it acts and read back exactly. One entry a step, verdict
// or revert (patch, node, wave, the step's commit, the rendered tree it
// delivered by content, the checks run and their results, the revert
// that undid it), each a commit of its own on Ref, pushed to the
// rollout's remote beside its branch and fetched with it.
//
// Only an entry that passes Trusted counts: it names a commit of the
// branch (or one a rewrite of the branch made again: its copy, with the
// same trailer, rendered tree and patch's files) that carries its
// patch's Strata-Rollout trailer, the rendered tree it claims is the one
// at that commit, and, where the repository
// signs its commits (commit.gpgSign), its own commit is signed with a
// good signature. Nothing else is read as a record: not a note, not a
// trailer in someone's commit, not a message that says "This reverts
// commit". docs/rollout.md states the model.
package record
