// Package rollout is strata rollout's engine, the per-patch state machine:
// it drives package promote step after step and watches the clusters
// take each step (SPEC section 5a).
//
// [Run] works on a fleet repository's work tree with the injected
// dependencies of [Env] (git, a clock, the connection to the Argo CDs, the
// locks); it returns a [Result] and streams [Event]s, printing nothing.
// [RunAll] drives every patch in flight at once, sharing one cache of the
// Argo CDs' live state (package rollout/livecache) and one writer (package
// rollout/writer) among them; a rollout of its own has its own, a batch of
// one.
//
// A run resumes from the repository and the clusters alone (resume.go,
// gone.go for a patch its last step removed), then takes step after step
// (rollout.go): planned with promote (plan.go), held by freezes and
// stopWhen conditions (hold.go), made and pushed by the writer (step.go's
// Make: action.Step.Run; replay.go makes it again on a moved remote),
// verified (verify.go): waited for through the live state (wait.go,
// evaluate.go: package live's verdict on what the step's commit changed,
// within the failure budget of budget.go, unwatched.go for nodes with
// nothing to watch), soaked and checked (checks.go), its verdict written
// to delivery's record (record.go), a failure reverted with
// Options.Revert. once.go ends a --once run at a wait that is not over;
// dryrun.go lists the steps. runner.go holds the types they share. Where
// each rollout stands, read without running one, is package
// rollout/inflight.
//
// Inside the package the files build on each other one way, in the order
// of fileLayers in the repository's layers_test.go (events, targets,
// checks, evaluate, budget, runner, plan, once, wait, unwatched, record,
// reach, hold, verify, replay, step, resume, gone, dryrun, rollout, all):
// a file uses only the declarations of those before it.
//
// docs/rollout.md describes how a rollout runs, in full.
package rollout
