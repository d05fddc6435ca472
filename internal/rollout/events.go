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
	// KindWaiting: the Applications of a step changed state while it
	// waits for them to sync and become healthy (Synced, Healthy, Total).
	KindWaiting Kind = "waiting"
	// KindHealthy: every Application of the step is synced at its commit
	// and healthy.
	KindHealthy Kind = "healthy"
	// KindUnwatched: the step's node declares it has nothing to watch
	// (rollout: {watch: false}); it is not waited for nor soaked, its
	// checks run.
	KindUnwatched Kind = "unwatched"
	// KindSoaking: the soak began (SoakUntil) or an Application changed
	// state during it.
	KindSoaking Kind = "soaking"
	// KindSoaked: the Applications stayed healthy for the soak time.
	KindSoaked Kind = "soaked"
	// KindCheck: a configured check ran (Check, Passed, Message), or
	// passed for the step's commit in an earlier run (Recorded).
	KindCheck Kind = "check"
	// KindUnhealthy: the step passed with clusters that failed within
	// its budget (rollout maxUnhealthy:), named in Unhealthy.
	KindUnhealthy Kind = "unhealthy"
	// KindGate: the next step enters a manual gate that is not approved;
	// Command continues the rollout.
	KindGate Kind = "gate"
	// KindFailed: the step failed; Failures say which Applications and
	// why.
	KindFailed Kind = "failed"
	// KindReverted: the failed step was reverted (Commit) and pushed.
	KindReverted Kind = "reverted"
	// KindPending: a --once run ends at a wait that is not over (Message
	// says which); the next run goes on from there.
	KindPending Kind = "pending"
	// KindDone: the rollout ends (Message says how).
	KindDone Kind = "done"
	// KindError: the rollout ends on an error that is no failed step (a
	// remote, a lock, a cluster that cannot be reached): Message says it,
	// as the command's error does, so that a reader of the events alone
	// knows why the run ended.
	KindError Kind = "error"
	// KindReplayed: the remote moved before the step's push; the step was
	// made again on it (Commit), or was already there (Message says).
	KindReplayed Kind = "replayed"
	// KindLost: the watch of an Argo CD failed (Message: which, and why);
	// the step waits for it until its timeout.
	KindLost Kind = "lost"
	// KindStalled: Argo CD has not taken the refresh the wait asked of a
	// cluster's root for a while (Message: which, for how long); the step
	// waits for it until its timeout.
	KindStalled Kind = "stalled"
	// KindHeld: the next step does not start: a freeze holds its node, or
	// a stopWhen condition holds (Message says which, Alerts what fires);
	// the rollout waits until neither does.
	KindHeld Kind = "held"
)

// Event is one thing that happened in a rollout: the CLI prints it (a line,
// a status display on a terminal, or a JSON object per line).
type Event struct {
	Kind Kind      `json:"event"`
	Time time.Time `json:"time"`
	// Patch is the rollout's <type>/<component>/<patch>, set by RunAll,
	// which interleaves the events of many.
	Patch string `json:"patch,omitempty"`
	// Step is the node the patch moved to (or is at, for the first wait).
	Step   string `json:"step,omitempty"`
	Commit string `json:"commit,omitempty"`
	// Message is the commit message's subject, or what happened.
	Message string `json:"message,omitempty"`
	// Targets are the targets (<type>/<node>) whose rendered output the
	// step changed.
	Targets []string `json:"targets,omitempty"`
	// Apps are the Applications waited on, with their state.
	Apps []AppState `json:"apps,omitempty"`
	// Synced, Healthy and Total count Apps.
	Synced  int `json:"synced,omitempty"`
	Healthy int `json:"healthy,omitempty"`
	Total   int `json:"total,omitempty"`
	// Since is when the wait began; Deadline when it times out; SoakUntil
	// when the soak ends.
	Since     time.Time `json:"since,omitzero"`
	Deadline  time.Time `json:"deadline,omitzero"`
	SoakUntil time.Time `json:"soakUntil,omitzero"`
	// Soak, Timeout and Checks are the policy of a KindPlanned step.
	Soak    string   `json:"soak,omitempty"`
	Timeout string   `json:"timeout,omitempty"`
	Checks  []string `json:"checks,omitempty"`
	// Check is the name of the check of a KindCheck event.
	Check  string `json:"check,omitempty"`
	Passed bool   `json:"passed,omitempty"`
	// Recorded: the check passed for this commit in an earlier run (a
	// note under NotesRef, Message says when) and was not run again; of a
	// KindFailed event, the step failed in an earlier run (strata's
	// record), said again.
	Recorded bool `json:"recorded,omitempty"`
	// Gates are the manual gates of a KindGate event; Command continues,
	// and Next is that command as data when it is not the caller's own
	// command line (Result.Next: the CLI names it with --root).
	Gates   []string     `json:"gates,omitempty"`
	Command string       `json:"command,omitempty"`
	Next    hint.Command `json:"-"`
	// Failures are the Applications (or checks) that failed.
	Failures []Failure `json:"failures,omitempty"`
	// Unhealthy are the clusters of the step that failed within its
	// budget (rollout maxUnhealthy:), one failure each: the step does not
	// wait for them, and the rollout goes on.
	Unhealthy []Failure `json:"unhealthy,omitempty"`
	// Nodes are the nodes a step enters when rollout waves: size it: of a
	// KindPlanned step (Wave says which: "2 of 4 of production"), and of
	// every event of a wave of more than one node, whose Step is the
	// first of them. MaxUnhealthy is its budget, when it has one.
	Nodes        []string `json:"nodes,omitempty"`
	Wave         string   `json:"wave,omitempty"`
	MaxUnhealthy string   `json:"maxUnhealthy,omitempty"`
	// Alerts are what fires, for a KindHeld event held by stopWhen.
	Alerts []alert.Alert `json:"alerts,omitempty"`
	// Unreadable names the stopWhen condition that holds a KindHeld
	// event because it cannot be read (Since: since when).
	Unreadable string `json:"unreadable,omitempty"`
}

// AppState is one Application (or ApplicationSet) a step waits for, and
// where it stands (package live's state and reason).
type AppState struct {
	// ArgoCD is the inventory's cluster whose Argo CD holds it; Cluster
	// the cluster whose rendered/ directory makes it.
	ArgoCD  string `json:"argocd"`
	Cluster string `json:"cluster"`
	// Target is its target as commands name it.
	Target string `json:"target"`
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	// State is live.State: healthy, synced, waiting, failed, ...; Reason
	// explains it with Argo CD's messages.
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
	// Commit last changed its rendered file; Revision is what the
	// cluster's root Application deployed.
	Commit   string `json:"commit,omitempty"`
	Revision string `json:"revision,omitempty"`
	Sync     string `json:"sync,omitempty"`
	Health   string `json:"health,omitempty"`
	Phase    string `json:"phase,omitempty"`
	// OpMessage is Argo CD's message on its last operation.
	OpMessage string `json:"operationMessage,omitempty"`
	// Revisions are the revisions its cluster's target runs, by name, as
	// the fleet pins them (the root's, then config.yaml's revisions:);
	// none when config.yaml names no revisions.
	Revisions []fleet.RevisionByName `json:"revisions,omitempty"`
}

// Synced reports whether it is synced at a revision containing its commit.
func (a AppState) Synced() bool { return a.State == "healthy" || a.State == "synced" }

// Healthy reports whether it is done: synced at its commit, healthy, its
// last operation succeeded (live.State.Done, docs/verdicts.md).
func (a AppState) Healthy() bool { return live.State(a.State).Done() }

// Failure is one reason a step failed.
type Failure struct {
	// Target, Cluster and App name where it failed ("" for a check).
	Target  string `json:"target,omitempty"`
	Cluster string `json:"cluster,omitempty"`
	App     string `json:"app,omitempty"`
	ArgoCD  string `json:"argocd,omitempty"`
	Check   string `json:"check,omitempty"`
	// Alert is the stopWhen condition that held during the step, Alerts
	// what fired.
	Alert  string        `json:"alert,omitempty"`
	Alerts []alert.Alert `json:"alerts,omitempty"`
	// Reason is Argo CD's own message (or the check's output).
	Reason string `json:"reason"`
}
