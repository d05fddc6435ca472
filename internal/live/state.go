package live

import (
	"fmt"
	"strings"
)

// State is where one Application (or one cell of the matrix) stands between
// Git and the cluster.
type State string

// The states, from the best to the worst (see [State.Rank]).
const (
	// Healthy: synced at a revision that contains the last change of its
	// rendered output, and healthy.
	Healthy State = "healthy"
	// Synced: as Healthy, but not healthy yet (progressing, suspended).
	Synced State = "synced"
	// NotCommitted: its rendered output differs from HEAD.
	NotCommitted State = "not committed"
	// Waiting: committed, Argo CD has not synced it yet (or is syncing).
	Waiting State = "waiting"
	// Unknown: Argo CD's answer does not say (no root Application for its
	// cluster, a revision the local repository does not have).
	Unknown State = "unknown"
	// Unreachable: its Argo CD could not be read.
	Unreachable State = "unreachable"
	// Missing: Argo CD synced the change, yet there is no such object.
	Missing State = "missing"
	// OutOfSync: synced at the right revision, but what runs differs from
	// it (drift).
	OutOfSync State = "out of sync"
	// Degraded: synced, but unhealthy.
	Degraded State = "degraded"
	// Failed: the last sync operation failed.
	Failed State = "failed"
)

var ranks = map[State]int{Healthy: 0, Synced: 1, NotCommitted: 2, Waiting: 3, Unknown: 4, Unreachable: 5,
	Missing: 6, OutOfSync: 7, Degraded: 8, Failed: 9}

// Rank orders states from the best (0, healthy) to the worst (failed); a
// cell has the worst state of its Applications.
func (s State) Rank() int { return ranks[s] }

// Done reports whether s is a state a rollout may go on from: synced at
// the change, and healthy.
func (s State) Done() bool { return s == Healthy }

// worse returns the worse of two states.
func worse(a, b State) State {
	if a == "" || b.Rank() > a.Rank() {
		return b
	}
	return a
}

// failedPhase reports whether an operation phase is a failure.
func failedPhase(p string) bool { return p == "Failed" || p == "Error" }

// appState is the state of a live Application whose cell's change its
// root has synced (contains) or not.
func appState(a *App, contains bool) (State, string) {
	switch {
	case failedPhase(a.Phase) && a.Sync != "Synced":
		return Failed, "sync " + strings.ToLower(a.Phase) + ": " + a.Message
	case !contains:
		return Waiting, "Argo CD has not synced the change yet"
	case a.Phase == "Running" && a.Retries > 0:
		return Failed, "sync failed, Argo CD retries it: " + a.Message
	case a.Phase == "Running" || a.Phase == "Terminating":
		return Waiting, "syncing"
	case !a.Fresh:
		return Waiting, "Argo CD has not compared the new spec yet"
	case a.Health == "Degraded":
		return Degraded, joinNonEmpty(a.HealthMessage, resourceSummary(a.Resources, false))
	case a.Sync == "OutOfSync":
		return OutOfSync, resourceSummary(a.Resources, true)
	case a.Sync == "Synced" && a.Health == "Healthy":
		return Healthy, ""
	case a.Sync == "Synced":
		return Synced, joinNonEmpty("health "+firstNonEmpty(a.Health, "unknown"), a.HealthMessage)
	}
	return Unknown, fmt.Sprintf("sync status %q", a.Sync)
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
