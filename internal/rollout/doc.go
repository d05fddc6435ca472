// Package rollout is strata rollout's engine, the per-patch state machine:
// it drives package promote step after step and watches the clusters
// take each step (SPEC section 5a).
//
// [Run] works on a fleet repository's work tree with the injected
// dependencies of [Env]; it returns a [Result] and streams [Event]s,
// printing nothing. [RunAll] drives every patch in flight at once, sharing
// one cache of live state (package rollout/livecache) and one writer
// (package rollout/writer); a rollout of its own is a batch of one.
//
// A run resumes from the repository and the clusters alone (resume.go,
// gone.go), then takes step after step (rollout.go): planned (plan.go),
// held by freezes and stopWhen (hold.go), made by the writer (step.go;
// replay.go on a moved remote), verified (verify.go: wait.go, evaluate.go,
// budget.go, unwatched.go, checks.go), recorded (record.go), reverted on
// failure (revert.go: a commit the writer pushes like a step). Where each
// rollout stands, read without running one, is package rollout/inflight.
//
// Its files build on each other one way, in the order of fileLayers in
// the repository's layers_test.go. docs/rollout.md describes how a
// rollout runs, in full.
package rollout
