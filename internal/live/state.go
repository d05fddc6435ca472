package live

import "strings"

// State is where one Application (or one cell of the matrix) stands between
// Git and the cluster.
type State string

// The states, from the best to the worst (see [State.Rank]).
const (
	// Healthy: synced at a revision that contains the last change of its
	// rendered output, healthy, its last operation (hooks included)
	// succeeded, no error condition: done (verdict.go, docs/verdicts.md).
	Healthy State = "healthy"
	// Synced: as Healthy, but not healthy yet (progressing, suspended).
	Synced State = "synced"
	// NotCommitted: its rendered output differs from HEAD.
	NotCommitted State = "not committed"
	// Waiting: committed, Argo CD has not synced it yet (or is syncing).
	Waiting State = "waiting"
	// Unknown: Argo CD's answer does not say (no root Application for its
	// cluster, a revision the local repository does not have, sync or
	// health Unknown, an error condition such as ComparisonError).
	Unknown State = "unknown"
	// Unreachable: its Argo CD could not be read.
	Unreachable State = "unreachable"
	// Missing: Argo CD synced the change, yet there is no such object (or
	// Argo CD reports its health Missing).
	Missing State = "missing"
	// OutOfSync: synced at the right revision, but what runs differs from
	// it (drift).
	OutOfSync State = "out of sync"
	// Degraded: synced, but unhealthy.
	Degraded State = "degraded"
	// Failed: the last sync operation failed or errored (a hook included),
	// or a SyncError or DeletionError condition.
	Failed State = "failed"
)

var ranks = map[State]int{Healthy: 0, Synced: 1, NotCommitted: 2, Waiting: 3, Unknown: 4, Unreachable: 5,
	Missing: 6, OutOfSync: 7, Degraded: 8, Failed: 9}

// Rank orders states from the best (0, healthy) to the worst (failed); a
// cell has the worst state of its Applications.
func (s State) Rank() int { return ranks[s] }

// Done reports whether s is a state a rollout may go on from: the one
// verdict of "done and healthy" (verdict.go).
func (s State) Done() bool { return s == Healthy }

// worse returns the worse of two states.
func worse(a, b State) State {
	if a == "" || b.Rank() > a.Rank() {
		return b
	}
	return a
}

// resourceSummary names the resources out of sync (or not healthy, each
// with Argo CD's health message).
func resourceSummary(rs []Resource, sync bool) string {
	var names []string
	for _, r := range rs {
		if sync && r.Status != "OutOfSync" || !sync && r.Health != "Degraded" && r.Health != "Missing" {
			continue
		}
		name := r.Kind + " " + qualified(r.Namespace, r.Name)
		if !sync && r.Message != "" {
			name += " (" + r.Message + ")"
		}
		names = append(names, name)
	}
	if len(names) == 0 {
		return ""
	}
	what := "out of sync: "
	if !sync {
		what = "unhealthy: "
	}
	return what + strings.Join(names, ", ")
}

func qualified(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

// joinNonEmpty joins the parts that are not empty with "; ".
func joinNonEmpty(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "; ")
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
