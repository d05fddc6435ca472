// Package rollout is strata rollout: it drives package promote step after
// step and watches the clusters take each step (SPEC section 5a).
//
// [Run] works on a fleet repository's work tree with an injected git
// runner ([Git]; [ExecGit] is the real one), clock and connection to the
// Argo CDs ([Env]); it returns a [Result] and streams [Event]s, printing
// nothing. [RunAll] drives every patch in flight at once, sharing one list
// and one watch per Argo CD (watch.go; a change wakes only the waits
// whose scope it concerns, scope.go) and one writer that makes the steps
// ready at once in one hold of the lock and one push (writer.go); its
// rollouts load the fleet a few at a time (runner.slot). It takes the
// repository lock only while it writes; the caller holds the patch's own
// lock for the run.
//
// A step (step.go) is package action's Step.Run, made by the writer (a
// rollout of its own is a batch of one: one write path), then the
// writer's push, the step made again on a moved remote (writer_push.go,
// replay.go), a wait for package live's verdict on what the
// step's commit changed (wait.go; every Argo CD read first, then watched,
// never polled; the roots not at the step asked to refresh, refresh.go),
// a soak and the checks (checks.go). Each step pushed and its verdict
// (the checks run, the failures, strata's revert) are written to
// delivery's record (record.go, package record), which later runs read,
// and nothing else, to skip the checks a step passed and to keep a
// failed step failed until its patch changes. Around it: the freezes
// and stopWhen conditions that hold or fail a step (hold.go), waves and
// the failure budget (budget.go), a revert on failure, gates that stop it.
// A run resumes from the repository and the clusters alone (resume.go;
// other patches' first copies, written by hand, stay out of its steps:
// firstcopies.go); a dry run lists the steps (dryrun.go); Options.Once
// evaluates each wait once, for a scheduled job (once.go, folded.go, [Settling]). [Flights]
// says where each rollout in flight stands, for status and the web UI
// (inflight.go).
//
// docs/rollout.md describes how a rollout runs, in full.
package rollout
