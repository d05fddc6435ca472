package rollout

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/rollout/inflight"
	"github.com/strata-fleet/strata/internal/rollout/livecache"
)

// waitSet is what a step waits for: the objects of the rendered output
// that pick selects, each synced at a revision that contains the commit
// that last changed its file, and healthy.
type waitSet struct {
	commit   string
	f        *fleet.Fleet
	expected []live.Expected // live.Expect's, until scoped
	history  *live.History
	pick     func(live.AppState) bool
	scope    *livecache.Scope // made at the first look (scoped)
	// mark is where the refreshes asked stood after the push; stalled
	// the stalled asks its wait reported (their seq).
	mark    uint64
	stalled map[livecache.AppKey]uint64
}

// scoped is ws's scope for the rollout of ct's component comp, made once.
func (ws *waitSet) scoped(ct, comp string) *livecache.Scope {
	if ws.scope == nil {
		ws.scope = livecache.NewScope(ws.f, ws.expected, ws.history, ws.pick, ct, comp)
		ws.expected = nil // a wait that lasts keeps only its scope's
	}
	return ws.scope
}

// observation is the state of a waitSet's objects at one moment.
type observation struct {
	apps []AppState
	// failed are the objects that failed at the step (a failed sync, or
	// degraded at its commit: failedHere, retrying).
	failed []Failure
	// roots are the root Applications of apps' clusters; behind those
	// that have not deployed an object not synced yet, to refresh.
	roots  map[string]live.Root
	behind []livecache.AppKey
	// healthySince is when the last of apps became synced and healthy as
	// Argo CD says; zero when one does not say.
	healthySince time.Time
}

// judge adds st to o (when it became healthy, its root when behind, its
// failure) and reports whether Argo CD says when it became healthy.
func (o *observation) judge(st live.AppState, h *live.History) bool {
	t := inflight.HealthySince(st)
	if root := o.roots[st.Cluster].App; !t.IsZero() && root != nil && root.FinishedAt.After(t) {
		t = root.FinishedAt // the root deployed the change later
	}
	if t.After(o.healthySince) {
		o.healthySince = t
	}
	a := appState(st)
	if !a.Synced() && st.Contains != nil && !*st.Contains {
		o.behind = append(o.behind, livecache.AppKey{ArgoCD: st.ArgoCD, Name: o.roots[st.Cluster].Name})
	}
	switch {
	case failedHere(st, o.roots[st.Cluster], h):
		o.failed = append(o.failed, a.failure(a.State+": "+a.said()))
	case retrying(st, h):
		o.failed = append(o.failed, a.failure(a.Reason))
	}
	return !t.IsZero()
}

// FailAfterRetries is how many retries of a failed sync of a step the
// rollout waits before it takes it for failed (docs/verdicts.md).
const FailAfterRetries = 2

// retrying reports whether Argo CD retries a failed sync of the object's
// commit and the rollout takes it for failed: at once when a hook failed,
// else from the FailAfterRetries-th retry (docs/verdicts.md).
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
// commit, not on an earlier one Argo CD still shows (so a revert's wait
// is not ended by the failure it reverts): a sync failed on a revision
// containing it (for a revision that is no commit, once the root deployed
// it), or synced at it and degraded (docs/verdicts.md).
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

// soakFailures are the objects that stopped being healthy during the soak:
// failed, degraded, missing, or out of sync.
func (o *observation) soakFailures() []Failure {
	var out []Failure
	for _, a := range o.apps {
		switch live.State(a.State) {
		case live.Failed, live.Degraded, live.Missing, live.OutOfSync:
			out = append(out, a.failure(a.State+" during the soak: "+a.said()))
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
		reason := a.State + ": " + a.said()
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

// said is Argo CD's reason for a's state, or that it gives none.
func (a AppState) said() string { return cmp.Or(a.Reason, "Argo CD gives no message") }
