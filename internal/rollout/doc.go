// Package rollout is strata rollout: it drives package promote step after
// step and watches the clusters take each step (SPEC section 5a, issue 12).
//
// [Run] works on a fleet repository's work tree ([Env].Dir) with an injected
// git runner ([Git]; [ExecGit] is the real one), clock, and connection to
// the API servers of the clusters that run Argo CD ([Env].Connect, a
// live.Connect). It returns a [Result] and streams [Event]s; it prints
// nothing (package cli does). The caller holds the repository lock
// (package lock) throughout, so that no promote or other rollout
// interleaves with its steps.
//
// One step: promote.Prepare and promote.Apply (journaled; an approved gate
// is recorded in the patch's metadata with Options.Approver), a render of
// rendered/ (package output), a commit of config/ and rendered/ whose
// subject says what moved where and how many targets' rendered output
// changed (with an Approved-by trailer per gate passed and a
// Strata-Rollout trailer), a push (to Options.Remote, else the branch's
// upstream), then the wait. What it waits for is package live's answer,
// never a second mapping: live.Expect lists the Applications and
// ApplicationSets the rendered output makes for each cluster of the
// inventory and where they live, live.Join joins them to what the Argo CDs
// hold and to the history of rendered/; the step waits for those of its
// cluster type and component whose rendered file the step's commit changed
// last, until each is live.Healthy: the cluster's root Application deployed
// a revision that contains the commit, Argo CD compared the object with its
// current spec, synced and healthy, its last operation succeeded (hooks
// included) and no error condition: package live's one verdict
// (live/verdict.go, docs/verdicts.md), which status --live shares. A step
// with nothing to wait on is no pass: when no cluster of the inventory sits
// at the targets a step can change (promote.Plan.Reach), the rollout stops
// before it changes anything with an error at the node in config.yaml,
// unless the node declares rollout: {watch: false} (fleet.RolloutPolicy
// NoWatch: the step runs its checks alone, unwatched.go); a wait set that is
// empty all the same fails the step. The Argo CDs are read once (live.Read)
// and then watched (live.Watch, each change applied to its instance): the
// wait never polls. Objects not synced yet, and their roots, are asked for
// a hard refresh (argocd.argoproj.io/refresh: hard) at once and every
// Env.RefreshEvery. Then the soak: they must stay healthy (failed,
// degraded, missing or out of sync ends it) for the soak time; then the
// checks, commands run with sh -c in the repository with the step in
// STRATA_* variables (CheckEnv), exit status 0 passing.
//
// Soak, timeout and checks come from config.yaml's rollout: settings
// (fleet.Config.RolloutAt: per node of the sequence, inherited downwards),
// Options.Soak and Options.Timeout override them for one run.
//
// A failure (a failed sync or hook, or one Argo CD still retries after
// FailAfterRetries attempts; an object degraded at the step's commit; a
// failed check; the timeout) ends the rollout with a *StepError naming the
// targets, clusters and Applications with Argo CD's own messages; nothing
// is promoted further. With Options.Revert the step's
// commit is reverted (git revert), pushed, and its targets waited for until
// they are healthy again. A manual gate that Options.Approve does not list
// ends it (Result.Stopped "gate") with the command that continues.
//
// No state file: each run starts from the repository and the clusters. It
// completes an interrupted promotion (promote's journal) and commits it as
// its step; commits the patch's own uncommitted files (its first copy,
// written by hand) as the first step; pushes commits not pushed yet; then
// waits for where the patch already is (the component's objects on the
// clusters under its locations, each at the commit that last changed its
// rendered file; then what remains of the soak since they became synced
// and healthy, which Argo CD records: the end of the last operation,
// status.operationState.finishedAt, and the last health transition,
// status.health.lastTransitionTime, whichever is later, the whole soak
// where it records neither; then the checks of its latest location)
// before the next step. So a rollout killed at any point, run again, ends
// as an uninterrupted one.
package rollout
