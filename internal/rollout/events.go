package rollout

import (
	"time"

	"github.com/strata-fleet/strata/internal/alert"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/hint"
	"github.com/strata-fleet/strata/internal/live"
)

// Kind names what an Event reports.
type Kind string

// The events of a rollout, in the order they come.
const (
	// KindStart: the rollout begins; Step is where the patch is.
	KindStart Kind = "start"
	// KindResumed: an interrupted promotion (its journal) was completed.
	KindResumed Kind = "resumed"
	// KindPlanned: with DryRun, one step the rollout would take.
	KindPlanned Kind = "planned"
	// KindPromoted: a step was promoted, rendered, committed and pushed.
	KindPromoted Kind = "promoted"
	// KindWaiting: the step's Applications changed state while it waits
	// for them (Synced, Healthy, Total).
	KindWaiting Kind = "waiting"
	// KindHealthy: every Application of the step is synced and healthy.
	KindHealthy Kind = "healthy"
	// KindUnwatched: the node has nothing to watch (rollout: {watch:
	// false}): no wait nor soak, its checks run.
	KindUnwatched Kind = "unwatched"
	// KindSoaking: the soak began (SoakUntil) or an Application changed.
	KindSoaking Kind = "soaking"
	// KindSoaked: the Applications stayed healthy for the soak time.
	KindSoaked Kind = "soaked"
	// KindCheck: a configured check ran (Check, Passed, Message), or
	// passed for the step's commit in an earlier run (Recorded).
	KindCheck Kind = "check"
	// KindUnhealthy: the step passed with clusters that failed within
	// its budget (rollout maxUnhealthy:), named in Unhealthy.
	KindUnhealthy Kind = "unhealthy"
	// KindGate: the next step enters a manual gate not approved; Command
	// continues.
	KindGate Kind = "gate"
	// KindFailed: the step failed; Failures say where and why.
	KindFailed Kind = "failed"
	// KindReverted: the failed step was reverted (Commit) and pushed.
	KindReverted Kind = "reverted"
	// KindPending: a --once run ends at a wait that is not over (Message
	// says which); the next run goes on from there.
	KindPending Kind = "pending"
	// KindDone: the rollout ends (Message says how).
	KindDone Kind = "done"
	// KindError: the rollout ends on an error that is no failed step;
	// Message says it, for a reader of the events alone.
	KindError Kind = "error"
	// KindReplayed: the remote moved before the push; the step was made
	// again on it (Commit), or was already there (Message says).
	KindReplayed Kind = "replayed"
	// KindLost: the watch of an Argo CD failed (Message: which, and why).
	KindLost Kind = "lost"
	// KindStalled: Argo CD has not taken the refresh asked of a root for
	// a while (Message: which, for how long).
	KindStalled Kind = "stalled"
	// KindHeld: a freeze or a stopWhen condition holds the next step
	// (Message says which, Alerts what fires).
	KindHeld Kind = "held"
)

// Event is one thing that happened in a rollout, for the CLI to print.
type Event struct {
	Kind Kind      `json:"event"`
	Time time.Time `json:"time"`
	// Patch is <type>/<component>/<patch>, set by RunAll.
	Patch string `json:"patch,omitempty"`
	// Step is the node the patch moved to (or is at, for the first wait).
	Step   string `json:"step,omitempty"`
	Commit string `json:"commit,omitempty"`
	// Message is the commit message's subject, or what happened.
	Message string `json:"message,omitempty"`
	// Targets are those (<type>/<node>) whose rendered output it changed.
	Targets []string `json:"targets,omitempty"`
	// Apps are the Applications waited on; Synced, Healthy, Total count
	// them.
	Apps    []AppState `json:"apps,omitempty"`
	Synced  int        `json:"synced,omitempty"`
	Healthy int        `json:"healthy,omitempty"`
	Total   int        `json:"total,omitempty"`
	// Since is when the wait began; Deadline when it times out; SoakUntil
	// when the soak ends.
	Since     time.Time `json:"since,omitzero"`
	Deadline  time.Time `json:"deadline,omitzero"`
	SoakUntil time.Time `json:"soakUntil,omitzero"`
	// Soak, Timeout and Checks are the policy of a KindPlanned step.
	Soak    string   `json:"soak,omitempty"`
	Timeout string   `json:"timeout,omitempty"`
	Checks  []string `json:"checks,omitempty"`
	// Check and Passed: a KindCheck event's.
	Check  string `json:"check,omitempty"`
	Passed bool   `json:"passed,omitempty"`
	// Recorded: the check passed (or the step failed) in an earlier run,
	// by strata's record, and was not run again.
	Recorded bool `json:"recorded,omitempty"`
	// Gates are a KindGate event's; Command continues, Next is it as data
	// when it is not the caller's command line (the CLI adds --root).
	Gates   []string     `json:"gates,omitempty"`
	Command string       `json:"command,omitempty"`
	Next    hint.Command `json:"-"`
	// Failures are the Applications (or checks) that failed; Unhealthy the
	// clusters that failed within the budget (maxUnhealthy), not waited for.
	Failures  []Failure `json:"failures,omitempty"`
	Unhealthy []Failure `json:"unhealthy,omitempty"`
	// Nodes are the nodes of a wave (of a KindPlanned step, with Wave "2 of
	// 4 of production", and of every event of a wave of more than one,
	// whose Step is the first); MaxUnhealthy its budget.
	Nodes        []string `json:"nodes,omitempty"`
	Wave         string   `json:"wave,omitempty"`
	MaxUnhealthy string   `json:"maxUnhealthy,omitempty"`
	// Alerts are what fires (KindHeld by stopWhen); Unreadable the
	// condition that holds as it cannot be read (Since: since when).
	Alerts     []alert.Alert `json:"alerts,omitempty"`
	Unreadable string        `json:"unreadable,omitempty"`
}

// AppState is one Application (or ApplicationSet) a step waits for, and
// where it stands (package live's state and reason).
type AppState struct {
	// ArgoCD is the cluster whose Argo CD holds it; Cluster the one whose
	// rendered/ directory makes it; Target as commands name it.
	ArgoCD  string `json:"argocd"`
	Cluster string `json:"cluster"`
	Target  string `json:"target"`
	Kind    string `json:"kind"`
	Name    string `json:"name"`
	// State is live.State; Reason explains it with Argo CD's messages.
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
	// Commit last changed its rendered file; Revision is what the
	// cluster's root deployed.
	Commit    string `json:"commit,omitempty"`
	Revision  string `json:"revision,omitempty"`
	Sync      string `json:"sync,omitempty"`
	Health    string `json:"health,omitempty"`
	Phase     string `json:"phase,omitempty"`
	OpMessage string `json:"operationMessage,omitempty"`
	// Revisions are the named revisions its target runs (none when
	// config.yaml names none).
	Revisions []fleet.RevisionByName `json:"revisions,omitempty"`
}

// Synced reports whether it is synced at a revision containing its commit.
func (a AppState) Synced() bool { return a.State == "healthy" || a.State == "synced" }

// Healthy reports whether it is done: synced at its commit, healthy, its
// last operation succeeded (live.State.Done, docs/verdicts.md).
func (a AppState) Healthy() bool { return live.State(a.State).Done() }

// Failure is one reason a step failed: where (Target, Cluster, App; ""
// for a check), the stopWhen condition that held (Alert, Alerts), and
// Argo CD's own message or the check's output.
type Failure struct {
	Target  string        `json:"target,omitempty"`
	Cluster string        `json:"cluster,omitempty"`
	App     string        `json:"app,omitempty"`
	ArgoCD  string        `json:"argocd,omitempty"`
	Check   string        `json:"check,omitempty"`
	Alert   string        `json:"alert,omitempty"`
	Alerts  []alert.Alert `json:"alerts,omitempty"`
	Reason  string        `json:"reason"`
}
