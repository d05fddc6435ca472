package live

import (
	"fmt"
	"strings"
)

// This file is strata's one definition of "done and healthy": the verdict
// on one live Application, which status --live, the web UI's live columns
// and strata rollout all read (through [Join]'s states). docs/verdicts.md
// writes it down; TestVerdicts holds it against every status shape Argo CD
// writes.
//
// An Application is Healthy when all of these hold:
//
//   - its cluster's root deployed a revision that contains the change
//     (contains);
//   - its last operation, if any, succeeded: status.operationState.phase
//     is Succeeded, and no resource of its result failed (a hook whose
//     phase is Failed or Error, a resource whose result is SyncFailed);
//   - Argo CD compared its current spec (status.sync.comparedTo);
//   - no condition is an error (a type ending in "Error", as Argo CD's own
//     ApplicationCondition.IsError: SyncError, ComparisonError,
//     InvalidSpecError, UnknownError, DeletionError);
//   - status.sync.status is Synced and status.health.status Healthy.
//
// Anything else is not healthy, and says why in Argo CD's own words: a
// failed or errored operation, whatever sync and health say (a PostSync
// hook that failed leaves an Application Synced and Healthy), is Failed,
// and so is a Running operation Argo CD retries (retryCount > 0: it writes
// a failed attempt back as Running, the attempt's result kept until the
// next one starts); Degraded and Missing health are Degraded and Missing; an error condition
// is Failed (SyncError, DeletionError) or Unknown (Argo CD could not
// compare); Unknown or absent sync or health, or an operation phase strata
// does not know, is Unknown; a Running or Terminating operation, a spec
// not compared yet, Progressing or Suspended health are waiting (Waiting,
// Synced), which a rollout waits on until its timeout.

// failedPhase reports whether an operation (or hook) phase is a failure.
func failedPhase(p string) bool { return p == "Failed" || p == "Error" }

// appState is the verdict on a live Application whose cell's change its
// cluster's root has deployed (contains) or not.
func appState(a *App, contains bool) (State, string) {
	switch {
	case failedPhase(a.Phase):
		return Failed, opFailure(a)
	case !contains:
		return Waiting, "Argo CD has not synced the change yet"
	case a.Phase == "Running" && a.Retries > 0:
		return Failed, "sync failed, Argo CD retries it: " + a.Message + failedResources(a)
	case a.Phase == "Running" || a.Phase == "Terminating":
		return Waiting, "syncing"
	case a.Phase != "" && a.Phase != "Succeeded":
		return Unknown, fmt.Sprintf("last operation in phase %q: %s", a.Phase, a.Message)
	case len(a.OpFailures) > 0:
		return Failed, opFailure(a)
	}
	if st, why := conditionState(a); st != "" {
		return st, why // before freshness: an error can keep comparedTo old
	}
	switch {
	case !a.Fresh:
		return Waiting, "Argo CD has not compared the new spec yet"
	case a.Health == "Degraded":
		return Degraded, joinNonEmpty(a.HealthMessage, resourceSummary(a.Resources, false))
	case a.Sync == "OutOfSync":
		return OutOfSync, resourceSummary(a.Resources, true)
	case a.Sync != "Synced":
		return Unknown, "sync status " + orUnknown(a.Sync)
	case a.Health == "Missing":
		return Missing, joinNonEmpty("health Missing", a.HealthMessage, resourceSummary(a.Resources, false))
	case a.Health == "Healthy":
		return Healthy, ""
	case a.Health == "Progressing" || a.Health == "Suspended":
		return Synced, joinNonEmpty("health "+a.Health, a.HealthMessage)
	}
	return Unknown, joinNonEmpty("health "+orUnknown(a.Health), a.HealthMessage)
}

// opFailure says how the last operation failed: its phase and message,
// and the hooks and resources that failed with their own messages.
func opFailure(a *App) string {
	s := "sync " + strings.ToLower(orUnknown(a.Phase))
	if a.Phase == "Succeeded" {
		s = "sync succeeded, yet some of its resources failed"
	}
	if a.Message != "" {
		s += ": " + a.Message
	}
	return s + failedResources(a)
}

// failedResources names the hooks and resources of the last operation's
// result that failed, with their own messages, each after "; ". (Between
// the attempts of a sync Argo CD retries, the result is the failed
// attempt's.)
func failedResources(a *App) string {
	var s string
	for _, f := range a.OpFailures {
		what := f.Kind + " " + qualified(f.Namespace, f.Name)
		if f.HookType != "" {
			what = f.HookType + " hook " + what
		}
		msg := f.Message
		if strings.Contains(a.Message, msg) {
			msg = "" // said already
		}
		s += "; " + what + ": " + joinNonEmpty(firstNonEmpty(f.HookPhase, f.Status), msg)
	}
	return s
}

// conditionState is the state an Application's error conditions give it
// ("" for none): a failed automated sync (SyncError) or deletion
// (DeletionError) is Failed; any other error (ComparisonError,
// InvalidSpecError, UnknownError) leaves its sync and health unknown.
func conditionState(a *App) (State, string) {
	var failed, unknown []string
	for _, c := range a.Conditions {
		typ, _, _ := strings.Cut(c, ": ")
		switch {
		case !strings.HasSuffix(typ, "Error"):
			// warnings (SharedResourceWarning, OrphanedResourceWarning...)
		case typ == "SyncError" || typ == "DeletionError":
			failed = append(failed, c)
		default:
			unknown = append(unknown, c)
		}
	}
	switch {
	case len(failed) > 0:
		return Failed, strings.Join(append(failed, unknown...), "; ")
	case len(unknown) > 0:
		return Unknown, strings.Join(unknown, "; ")
	}
	return "", ""
}

func orUnknown(s string) string { return firstNonEmpty(s, "Unknown") }
