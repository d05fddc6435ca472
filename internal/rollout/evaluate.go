package rollout

import (
	"context"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/render"
	"github.com/strata-fleet/strata/internal/rollout/inflight"
	"github.com/strata-fleet/strata/internal/rollout/livecache"
)

// waitSet is what a step waits for: the Applications (and
// ApplicationSets) of the rendered output that pick selects, each synced
// at a revision that contains the commit that last changed its rendered
// file, and healthy (live.State Healthy).
type waitSet struct {
	commit string
	f      *fleet.Fleet
	// expected is what the rendered output makes, from live.Expect.
	expected []live.Expected
	history  *live.History
	pick     func(live.AppState) bool
	// scope is what its wait joins (scoped), made at the first look.
	scope *livecache.Scope
	// mark is where the refreshes asked stood when it was read, after
	// the step's push (watcher.mark); stalled the stalled asks its wait
	// reported (their seq).
	mark    uint64
	stalled map[livecache.AppKey]uint64
}

// newWaitSet reads what the rendered output expects and the history of
// rendered/ now (after the step's commit): the expectation the writer
// keeps for HEAD, shared by every rollout of a RunAll.
func (r *runner) newWaitSet(ctx context.Context, commit string, pick func(live.AppState) bool) (*waitSet, error) {
	e, err := r.writer.expectAt(ctx, r)
	if err != nil {
		return nil, err
	}
	return &waitSet{commit: commit, f: e.f, expected: e.expected, history: e.history, pick: pick, mark: r.watch.Mark()}, nil
}

// expectation is what the rendered output at one commit expects
// (live.Expect) and the history of rendered/ there: what the waits of
// the steps it holds join the Argo CDs' objects to.
type expectation struct {
	head     string
	f        *fleet.Fleet
	own      live.Owned
	expected []live.Expected
	history  *live.History
}

// expectationReads counts readExpectation's reads, for the tests
// (export_test.go).
var expectationReads atomic.Int64

func readExpectation(fsys fs.FS, dir string) (*expectation, error) {
	expectationReads.Add(1)
	rd, err := render.Load(fsys)
	if err != nil {
		return nil, err
	}
	own, err := live.Own(rd.Fleet, rd.Owners, nil)
	if err != nil {
		return nil, err
	}
	h, err := live.ReadHistory(dir, rd.Fleet.Config.OutputRoot())
	if err != nil {
		return nil, err
	}
	return &expectation{head: h.Head, f: rd.Fleet, own: own, expected: live.ExpectOwned(rd.Fleet, own), history: h}, nil
}

// advance returns the expectation at head, which commits made on e's
// head lead to, with nothing uncommitted after them: what the targets
// under dirs (the steps' Plan.RenderedDirs, all their config can
// change) render is asked again, the rest is e's; the history is e's
// advanced by changes. At 1,000 x 100 a whole read is about 10 s of a
// push, this a fraction of it (BENCHMARKS.md, delivery).
func (e *expectation) advance(fsys fs.FS, head string, dirs []string, changes []live.Changed) (*expectation, error) {
	rd, err := render.Load(fsys)
	if err != nil {
		return nil, err
	}
	// A target is under a step's node when its directory or one above it
	// is the node's: a few lookups a target, not one comparison per
	// directory of every step of the push (thousands in a wide wave).
	root := rd.Fleet.Config.OutputRoot()
	nodes := make(map[string]bool, len(dirs))
	for _, d := range dirs {
		nodes[d] = true
	}
	under := func(t render.Target) bool {
		for d := t.Dir(); d != root && d != "."; d = path.Dir(d) {
			if nodes[d] {
				return true
			}
		}
		return false
	}
	fresh, err := live.Own(rd.Fleet, rd.Owners, under)
	if err != nil {
		return nil, err
	}
	own := maps.Clone(e.own)
	maps.Copy(own, fresh)
	// A step changes a component's config, never the inventory (clusters,
	// targets, components) the waits join with: one fleet serves every
	// push's, not one each (2.8 MB at 1,000 x 100).
	return &expectation{head: head, f: e.f, own: own, expected: live.ExpectOwned(e.f, own), history: e.history.Advance(head, changes)}, nil
}

// scoped is ws's scope for the rollout of ct's component comp, made once.
func (ws *waitSet) scoped(ct, comp string) *livecache.Scope {
	if ws.scope == nil {
		ws.scope = livecache.NewScope(ws.f, ws.expected, ws.history, ws.pick, ct, comp)
		// The whole fleet's list is the push's, and no longer needed here:
		// a wait that lasts keeps only its scope's, not one list a push.
		ws.expected = nil
	}
	return ws.scope
}

// changedIn picks the objects whose rendered file commit changed last.
func changedIn(commit string) func(live.AppState) bool {
	return func(s live.AppState) bool { return s.Commit == commit }
}

// observation is the state of a waitSet's objects at one moment.
type observation struct {
	apps []AppState
	// failed are the objects whose failure is the step's (see failedHere).
	failed []Failure
	// roots are the root Applications of the clusters of apps, by
	// cluster; behind those that have not deployed an object of apps not
	// synced yet, to refresh (refresh.go).
	roots  map[string]live.Root
	behind []livecache.AppKey
	// healthySince is when the last of apps became synced and healthy as
	// Argo CD says (see healthySince); zero when one of them does not say.
	healthySince time.Time
}

// observe reads the state of ws's objects.
func (r *runner) observe(ws *waitSet) *observation {
	rep := r.watch.Report(ws.scoped(r.opts.ClusterType, r.opts.Component), ws.history)
	o := &observation{roots: map[string]live.Root{}}
	for _, cell := range rep.Cells {
		if cell.ClusterType != r.opts.ClusterType || cell.Component != r.opts.Component {
			continue
		}
		for _, st := range cell.Apps {
			if ws.pick(st) {
				o.apps = append(o.apps, appState(st))
			}
		}
	}
	for _, root := range rep.Roots {
		if slices.ContainsFunc(o.apps, func(a AppState) bool { return a.Cluster == root.Cluster }) {
			o.roots[root.Cluster] = root
		}
	}
	known := true
	for _, cell := range rep.Cells {
		for _, st := range cell.Apps {
			if cell.ClusterType != r.opts.ClusterType || cell.Component != r.opts.Component || !ws.pick(st) {
				continue
			}
			t := inflight.HealthySince(st)
			if root := o.roots[st.Cluster].App; !t.IsZero() && root != nil && root.FinishedAt.After(t) {
				t = root.FinishedAt // the root deployed the change later
			}
			if t.IsZero() {
				known = false
			} else if t.After(o.healthySince) {
				o.healthySince = t
			}
			a := appState(st)
			if !a.Synced() && st.Contains != nil && !*st.Contains {
				o.behind = append(o.behind, livecache.AppKey{ArgoCD: st.ArgoCD, Name: o.roots[st.Cluster].Name})
			}
			switch {
			case failedHere(st, o.roots[st.Cluster], ws.history):
				o.failed = append(o.failed, a.failure(a.State+": "+orElse(a.Reason, "Argo CD gives no message")))
			case retrying(st, ws.history):
				o.failed = append(o.failed, a.failure(a.Reason))
			}
		}
	}
	if !known {
		o.healthySince = time.Time{}
	}
	return o
}

// FailAfterRetries is how many times Argo CD retries a failed sync of a
// step (syncPolicy.retry; 5 by default for an automated sync) before the
// rollout takes it for failed: a transient error is given that chance, an
// error that stays is not waited for until the timeout.
const FailAfterRetries = 2

// retrying reports whether the object's sync of its commit failed and Argo
// CD retries it (its operation is Running with status.operationState.
// retryCount > 0), and the rollout takes it for failed: at once when the
// failed attempt's result names a failed hook (the step's own test failed
// on its revision; Argo CD runs it again, for minutes of backoff), else
// from the FailAfterRetries-th retry. See docs/verdicts.md.
func retrying(st live.AppState, h *live.History) bool {
	a := st.Live
	if a == nil || a.Phase != "Running" || a.Retries == 0 || st.Contains == nil || !*st.Contains {
		return false
	}
	hook := slices.ContainsFunc(a.OpFailures, func(f live.OpFailure) bool { return f.HookType != "" })
	if a.Retries < FailAfterRetries && !hook {
		return false
	}
	in, err := h.Contains(st.Commit, a.OpRevision)
	return in || err != nil && a.Fresh
}

// failedHere reports whether a failed or degraded object failed on its own
// commit, not on an earlier one whose failure Argo CD still shows: a sync
// failed on a revision that contains the commit (or, for a revision that
// is no commit of the repository, such as a chart version, on the current
// spec, once the cluster's root deployed the commit), or the object synced
// at the commit and degraded. So the wait after a revert is not ended by
// the failure it reverts. (For a source that is no Git revision, a failure
// Argo CD still shows between its comparison of the new spec and its sync
// is taken for the new one.)
func failedHere(st live.AppState, root live.Root, h *live.History) bool {
	opContains := func(a *live.App) bool {
		if a == nil || a.OpRevision == "" {
			return false
		}
		in, err := h.Contains(st.Commit, a.OpRevision)
		if err != nil {
			return a == st.Live && a.Fresh
		}
		return in
	}
	switch st.State {
	case live.Failed:
		if st.Live != nil && st.Live.Phase == "Running" {
			return false // a failed sync Argo CD retries: see retrying
		}
		if st.Live != nil && (st.Live.Phase == "Failed" || st.Live.Phase == "Error") {
			return st.Contains != nil && *st.Contains && opContains(st.Live)
		}
		return opContains(root.App)
	case live.Degraded:
		return st.Live != nil && st.Live.Sync == "Synced"
	}
	return false
}

func appState(st live.AppState) AppState {
	a := AppState{ArgoCD: st.ArgoCD, Cluster: st.Cluster, Target: st.Target, Kind: st.Kind, Name: st.Name,
		State: string(st.State), Reason: st.Reason, Commit: st.Commit, Revision: st.RootRevision}
	if st.Live != nil {
		a.Sync, a.Health, a.Phase, a.OpMessage = st.Live.Sync, st.Live.Health, st.Live.Phase, st.Live.Message
	}
	return a
}

func (o *observation) counts() (synced, healthy int) {
	for _, a := range o.apps {
		if a.Synced() {
			synced++
		}
		if a.Healthy() {
			healthy++
		}
	}
	return synced, healthy
}

// failures are the objects that failed at the step: a failed sync, or
// degraded at its commit.
func (o *observation) failures() []Failure { return o.failed }

// soakFailures are the objects that stopped being healthy during the soak:
// failed, degraded, missing, or out of sync.
func (o *observation) soakFailures() []Failure {
	var out []Failure
	for _, a := range o.apps {
		switch live.State(a.State) {
		case live.Failed, live.Degraded, live.Missing, live.OutOfSync:
			out = append(out, a.failure(a.State+" during the soak: "+orElse(a.Reason, "Argo CD gives no message")))
		}
	}
	return out
}

// timeoutFailures say, at the timeout, where each object that is not
// healthy stands.
func (o *observation) timeoutFailures() []Failure {
	var out []Failure
	for _, a := range o.apps {
		if a.Healthy() {
			continue
		}
		reason := a.State + ": " + orElse(a.Reason, "Argo CD gives no message")
		if a.OpMessage != "" && !strings.Contains(reason, a.OpMessage) {
			reason += "; its last operation (" + a.Phase + "): " + a.OpMessage
		}
		out = append(out, a.failure(reason))
	}
	return out
}

func (a AppState) failure(reason string) Failure {
	return Failure{Target: a.Target, Cluster: a.Cluster, App: a.Name, ArgoCD: a.ArgoCD, Reason: reason}
}

func orElse(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
