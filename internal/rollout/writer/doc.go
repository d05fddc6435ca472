// Package writer is the rollouts' Git writer: it makes the steps of the
// rollouts of a process (a rollout of its own is a batch of one) in one
// hold of the repository lock, each its own commit made by the rollout
// ([Rollout.Make]: package action's Step.Run), pushes them in one push
// (a push refused because the remote moved replays every step on the new
// upstream, [Rollout.Remake]; never a force push), records them in
// delivery's record in one write, and reads once for all of them what the
// rendered output expects after the push ([Expectation]), which their
// waits join to the live state. A catch-up's step or a revert is pushed
// alone by the same loop ([Writer.Publish]).
//
// [Repo] is what a rollout does with git (the remote branch, push,
// fetches serialized per repository: [Fetch], [FetchBranch]);
// firstcopies.go keeps other patches' first copies, written by hand, out
// of a step. It knows nothing of plans, policies or waits: the rollout
// engine (package rollout) implements [Rollout].
package writer
