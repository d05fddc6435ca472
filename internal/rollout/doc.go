// Package rollout is strata rollout: it drives package promote step after
// step and watches the clusters take each step (SPEC section 5a, issue 12).
//
// [Run] works on a fleet repository's work tree ([Env].Dir) with an injected
// git runner ([Git]; [ExecGit] is the real one), clock, and connection to
// the API servers of the clusters that run Argo CD ([Env].Connect, a
// live.Connect). It returns a [Result] and streams [Event]s; it prints
// nothing (package cli does). It takes the repository lock only while it
// writes ([Env].Lock: the catch-up, each step, a revert), never while it
// waits or soaks, so that other patches move meanwhile; the caller holds
// the patch's own lock (lock.AcquireRollout) for the run.
//
// Before its first commit, push or wait it reads every Argo CD (one list
// each); one that runs the cluster type's Applications and cannot be read
// stops it with an [*UnreachableError], nothing committed or pushed. A
// watch lost during a wait is reported at once (KindLost) and waited for
// until the step's timeout.
//
// One step is package action's Step: promote.Prepare and promote.Apply
// (journaled; an approved gate is recorded in the patch's metadata with
// Options.Approver), a render of what it can change (package output), a
// commit of config/ and rendered/ whose subject says what moved where and
// how many targets' rendered files the commit changes (with the patch's
// metadata, an Approved-by trailer per gate passed and a Strata-Rollout
// trailer); then a push (to Options.Remote, else the branch's
// upstream). A push refused because the remote moved is replayed: HEAD
// reset to the new upstream (others' commits kept), the step planned,
// promoted, rendered and committed again there, pushed again, at most
// MaxReplays times with a doubling backoff; a step upstream already has is
// not made twice, and a change of the same patch or node upstream stops
// the rollout ([*ConflictError]). A revision Argo CD synced that the local
// repository lacks (pushed by someone after the step) is fetched and
// judged again. Then the wait. What it waits for is package live's answer,
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
// wait never polls. RunAll's rollouts share that read and watch (one list
// and one watch per Argo CD, each rollout told of changes through its own
// view, watch.go), whatever the number of patches in flight; and one
// writer (writer.go): each time it holds the repository lock it makes the
// step of every rollout ready at that moment, each its own commit in
// patch order, pushes them in one push (a refused push replays them all
// on the new upstream) and reads their wait sets once; reads that write
// nothing (a plan before a hold, a catch-up with nothing to do, a wait
// set) take no repository lock under RunAll. Objects not synced yet, and their roots, are asked for
// a hard refresh (argocd.argoproj.io/refresh: hard) at once and every
// Env.RefreshEvery. Then the soak: they must stay healthy (failed,
// degraded, missing or out of sync ends it) for the soak time; then the
// checks, commands run with sh -c in the repository with the step in
// STRATA_* variables (CheckEnv), exit status 0 passing, or Prometheus
// queries, no sample passing.
//
// Stop the line: before a step starts (hold.go), the freezes (package
// freeze; read from the remote branch after a fetch, so that a freeze
// pushed from any clone counts) and the stopWhen conditions of the node's
// policy (package alert) are read; while one holds, the rollout is held
// (KindHeld) and reads them again every Env.HoldEvery. During each wait
// and soak a guard reads the stopWhen conditions every condition's
// interval, and once more at the end of the soak: one that holds fails
// the step (a Failure naming the condition and its alerts).
//
// Where config.yaml's rollout waves: apply, a step is a wave of nodes
// (promote.Plan.Wave): one promotion, one commit, one wait, one soak. A
// step's failure budget, rollout maxUnhealthy: (budget.go), lets that many
// of its clusters fail to become synced and healthy: they are excused
// (not waited for, named in the events' Unhealthy and a KindUnhealthy
// event, and in Strata-Unhealthy trailers on the next step's commit) and
// the rollout goes on; one more fails the step as any failure does
// without a budget.
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
// Where each rollout in flight stands (inflight.go, for status and the
// web UI) is derived the same way, never stored: [Flights] reads the
// fleet, the commits that changed each patch's files (its last step; a
// revert commit of the rollout carries a Strata-Failed trailer per
// failure, its last failure), the freezes and, when asked, the live state
// and the stopWhen conditions.
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
//
// Options.Once (rollout --once, once.go) is that run made for a scheduled
// job: each wait (the step's Applications, its soak, a hold) evaluates
// what holds now and, when not over, ends the run (Result.Stopped
// StoppedPending, a KindPending event) instead of waiting. A step's
// timeout and soak are measured from its commit's time in Git, and a
// step reverted by an earlier run stays failed until the patch changes.
// A last step that removed the patch's files (folded.go) is found by the
// last commit that changed them: the fold, a commit of this rollout
// (Strata-Rollout trailer), is settled as the last step (waited for,
// soaked, checked, reverted when it fails); the revert of the first step
// is the failure it was. [Settling] lists such patches, within a window
// after their last step, for RunAll and package runner.
package rollout
