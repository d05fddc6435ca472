package inflight

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/strata-fleet/strata/internal/alert"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/freeze"
	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/promote"
	"github.com/strata-fleet/strata/internal/record"
)

// Flight is where the rollout of one patch in flight stands (status and
// the web UI show it), derived from the fleet, its Git history and the
// live state when asked; nothing is stored.
type Flight struct {
	// Patch is <type>/<component>/<patch>.
	Patch string `json:"patch"`
	// At is the patch's latest location, Wave its wave there.
	At   string        `json:"at"`
	Wave *promote.Wave `json:"wave,omitempty"`
	// Step is the last commit that changed the patch's files (nil: none).
	Step *Commit `json:"step,omitempty"`
	// Next is the node the next step enters, Folds that it folds the
	// patch; both empty when no step is left (Problem: why, if an error).
	Next    string `json:"next,omitempty"`
	Folds   bool   `json:"folds,omitempty"`
	Problem string `json:"problem,omitempty"`
	// Removed is what removed the patch's files while its rollout settles
	// that step (Settling): "fold" or "revert" (of its first step).
	Removed string `json:"removed,omitempty"`
	// Waits are what the next step waits for, in order (empty: it can
	// start now).
	Waits []Wait `json:"waits"`
	// SoakUntil is when the last step's soak ends, SoakLeft how long from
	// now: counted from the step's commit, or with the live state from
	// when its Applications became synced and healthy.
	SoakUntil *time.Time `json:"soakUntil,omitempty"`
	SoakLeft  string     `json:"soakLeft,omitempty"`
	// HeldBy is the freeze or stopWhen condition (FlightOptions.Alerts)
	// that holds the next step.
	HeldBy string `json:"heldBy,omitempty"`
	// LastFailure is a failed Application at its locations (live), else
	// the last revert of one of its steps.
	LastFailure *Failed `json:"lastFailure,omitempty"`
}

// Wait is one thing a patch's next step waits for.
type Wait struct {
	// Kind is sync, soak, gate (Node), commit (its first copy), change (a
	// recorded failure: stopped until the patch's files change) or render
	// (committed without strata render).
	Kind    string `json:"kind"`
	Node    string `json:"node,omitempty"`
	Message string `json:"message"`
}

// FlightOptions are where Flights reads from besides the fleet.
type FlightOptions struct {
	// Git runs git in the repository; nil (or no repository) leaves the
	// history out.
	Git git.Runner
	// Now is the time soaks are counted to.
	Now time.Time
	// Live, when not nil, is the live state (live.Load).
	Live *live.Report
	// Alerts reads the stopWhen conditions of each next step, with
	// ReadCondition (nil: ReadCondition; a server gives one that caches).
	Alerts        bool
	ReadCondition ConditionReader
	// Unrendered, when set, lists the targets under the rendered
	// directories dirs (nil: all) whose output does not follow config/
	// (action.Step.UnrenderedIn): a patch with such targets where it is
	// waits for strata render.
	Unrendered func(dirs []string) ([]string, error)
}

// ConditionReader reads a stopWhen condition: the alerts that fire (or
// the samples a query returns).
type ConditionReader func(ctx context.Context, c fleet.StopCondition) ([]alert.Alert, error)

// Flights derives where the rollout of every patch in flight (and
// settling) stands, fsys the repository; history says whether the Git
// history was read.
func Flights(ctx context.Context, f *fleet.Fleet, fsys fs.FS, opts FlightOptions) (flights []Flight, history bool, err error) {
	freezes, err := freeze.Read(fsys, f.Config)
	if err != nil {
		return nil, false, err
	}
	if opts.Git != nil {
		if _, err := opts.Git.Run(ctx, "rev-parse", "--verify", "-q", "HEAD"); err == nil {
			history = true
		}
	}
	var rec *record.Entries
	if history {
		if rec, err = readRecord(ctx, opts.Git); err != nil {
			return nil, false, err
		}
	}
	flights = []Flight{}
	for _, id := range Patches(f) {
		fl, err := flight(ctx, f, fsys, id, freezes, rec, opts)
		if err != nil {
			return nil, false, fmt.Errorf("%s: %w", id, err)
		}
		flights = append(flights, fl)
	}
	if !history {
		return flights, false, nil
	}
	settling, err := Settling(ctx, opts.Git, f, opts.Now, nil, nil)
	if err != nil {
		return nil, false, err
	}
	for _, id := range settling {
		fl, ok, err := settled(ctx, f, id, rec, opts)
		if err != nil {
			return nil, false, fmt.Errorf("%s: %w", id, err)
		}
		if ok {
			flights = append(flights, fl)
		}
	}
	slices.SortStableFunc(flights, func(a, b Flight) int { return strings.Compare(a.Patch, b.Patch) })
	return flights, true, nil
}

// settled is where the rollout of a patch whose last step removed its
// files stands: the fold at its node until strata records its pass, or
// the reverted first step as the last failure. ok is false for what is
// no step of strata's, or changed no target.
func settled(ctx context.Context, f *fleet.Fleet, id string, rec *record.Entries, opts FlightOptions) (fl Flight, ok bool, err error) {
	parts := strings.SplitN(id, "/", 3)
	po := promote.Options{ClusterType: parts[0], Component: parts[1], Patch: parts[2]}
	fl = Flight{Patch: id, Waits: []Wait{}, Removed: "fold"}
	if err := fl.readHistory(ctx, opts.Git, rec, po); err != nil || fl.Step == nil {
		return fl, false, err
	}
	// The last step recorded that removed the files: a revert, or a fold.
	last := fl.Step.Commit
	var ids []string
	if lf := fl.LastFailure; lf != nil && lf.Source == "revert" && lf.Commit == last {
		fl.Removed = "revert"
		e, _ := rec.Naming(ctx, id, record.KindReverted, last)
		ids = e.Targets
	} else {
		fl.LastFailure = nil // an earlier step's: the fold came after it
		e, ok := rec.Naming(ctx, id, record.KindStep, last)
		if !ok {
			return fl, false, nil // not a step of strata's
		}
		ids = e.Targets
	}
	if fl.At = LastNode(ids, po.ClusterType); fl.At == "" {
		return fl, false, nil // no target's output changed: nothing to settle
	}
	if fl.Removed == "revert" {
		return fl, true, nil
	}
	locs := make([]string, len(ids))
	for i, id := range ids {
		locs[i] = strings.TrimPrefix(id, po.ClusterType+"/")
	}
	fl.waitFor(f, opts, po, locs)
	return fl, true, nil
}

func flight(ctx context.Context, f *fleet.Fleet, fsys fs.FS, id string, freezes []freeze.Freeze, rec *record.Entries, opts FlightOptions) (Flight, error) {
	parts := strings.SplitN(id, "/", 3)
	po := promote.Options{ClusterType: parts[0], Component: parts[1], Patch: parts[2]}
	fl := Flight{Patch: id, Waits: []Wait{}}
	locs := Locations(f, po.ClusterType, po.Component, po.Patch)
	if len(locs) == 0 {
		return fl, nil
	}
	fl.At = locs[len(locs)-1]
	var err error
	if fl.Wave, err = promote.WaveOf(f, po); err != nil {
		return fl, err
	}
	if rec != nil {
		if err := fl.readHistory(ctx, opts.Git, rec, po); err != nil {
			return fl, err
		}
		if fl.Step == nil {
			fl.Waits = append(fl.Waits, Wait{Kind: "commit", Node: fl.At, Message: "the commit of its first copy (strata rollout commits it)"})
		}
	}
	fl.waitFor(f, opts, po, locs)
	// Delivered needs a committed copy and a rendered tree to be in.
	if _, err := fs.Stat(fsys, f.Config.OutputRoot()); err == nil && fl.Step != nil {
		if err := fl.waitRender(f, opts, po, locs); err != nil {
			return fl, err
		}
	}
	if slices.ContainsFunc(fl.Waits, func(w Wait) bool { return w.Kind == "change" || w.Kind == "render" }) {
		// Stopped, or not delivered: no soak leads anywhere.
		fl.SoakUntil, fl.SoakLeft = nil, ""
		fl.Waits = slices.DeleteFunc(fl.Waits, func(w Wait) bool { return w.Kind == "soak" })
	}
	po.Approve = true
	plan, err := promote.Prepare(f, po)
	switch {
	case errors.Is(err, promote.ErrNothingToDo):
		return fl, nil
	case err != nil:
		fl.Problem, _, _ = strings.Cut(err.Error(), "\n")
		return fl, nil
	}
	fl.Next, fl.Folds = plan.Target, plan.Target == "" && plan.Integrated != ""
	for _, g := range plan.Gates {
		fl.Waits = append(fl.Waits, Wait{Kind: "gate", Node: g, Message: "approval at the manual gate " + g})
	}
	if fz := freeze.Holding(freezes, plan.Target); fz != nil {
		fl.HeldBy = fmt.Sprintf("freeze of %s by %s: %s", fz.Scope(), fz.By, fz.Reason)
	} else if opts.Alerts {
		read := opts.ReadCondition
		if read == nil {
			read = ReadCondition
		}
		fl.HeldBy = stopWhen(ctx, f, plan.Target, read)
	}
	return fl, nil
}

// waitFor adds the waits of the last step, at fl.At: its Applications at
// locs (with the live state) and its soak, counted from when Argo CD says
// they became healthy, else from the step's commit.
func (fl *Flight) waitFor(f *fleet.Fleet, opts FlightOptions, po promote.Options, locs []string) {
	policy := f.Config.RolloutAt(f.Config.Find(strings.Split(fl.At, "/")))
	if fl.Removed == "fold" { // the fold's policy is the strictest of its nodes' (foldPolicy)
		policy = f.Config.StrictestAt(locs...)
	}
	var since time.Time // when the last step's Applications became healthy
	waiting := false
	if opts.Live != nil {
		since, waiting = fl.liveWait(f, opts.Live, po, locs)
	}
	if since.IsZero() && fl.Step != nil {
		since = fl.Step.At // Argo CD does not say, or was not asked
	}
	if !waiting && !since.IsZero() && policy.Soak > 0 && !policy.NoWatch { // a node not watched never soaks
		if until := since.Add(policy.Soak); until.After(opts.Now) {
			fl.SoakUntil = &until
			fl.SoakLeft = until.Sub(opts.Now).Round(time.Second).String()
			fl.Waits = append(fl.Waits, Wait{Kind: "soak", Node: fl.At,
				Message: fmt.Sprintf("soak until %s (%s left)", until.UTC().Format(time.RFC3339), fl.SoakLeft)})
		}
	}
}

// waitRender adds, first, the wait for strata render when the targets
// under locs do not follow config/ (opts.Unrendered).
func (fl *Flight) waitRender(f *fleet.Fleet, opts FlightOptions, po promote.Options, locs []string) error {
	if opts.Unrendered == nil {
		return nil
	}
	var dirs []string
	for _, l := range locs {
		d, ok := f.Config.NodeDirs(po.ClusterType, l)
		if !ok {
			dirs = nil // every target: the layout cannot tell
			break
		}
		dirs = append(dirs, d...)
	}
	ts, err := opts.Unrendered(dirs)
	if err != nil || len(ts) == 0 {
		return err
	}
	shown := ts
	if len(ts) > 5 {
		shown = append(slices.Clone(ts[:5]), fmt.Sprintf("%d more", len(ts)-5))
	}
	fl.Waits = append([]Wait{{Kind: "render", Node: fl.At, Message: fmt.Sprintf(
		"strata render: rendered/ does not follow config/ for %s (committed without strata render); the patch is not delivered there until its rendered output is committed",
		strings.Join(shown, ", "))}}, fl.Waits...)
	return nil
}

// stopWhen says the first stopWhen condition of a step into node that
// holds (or cannot be read), "" when none does.
func stopWhen(ctx context.Context, f *fleet.Fleet, node string, read ConditionReader) string {
	var n *fleet.Node
	if node != "" {
		n = f.Config.Find(strings.Split(node, "/"))
	}
	for _, c := range f.Config.RolloutAt(n).StopWhen {
		alerts, err := read(ctx, c)
		if err != nil {
			return fmt.Sprintf("stopWhen %s cannot be read: %v", c.Name, err)
		}
		if len(alerts) > 0 {
			return fmt.Sprintf("stopWhen %s: %s", c.Name, alert.Describe(alerts))
		}
	}
	return ""
}

// readHistory reads the patch's last step (the last commit of its files)
// and, from the record, its last failure, which keeps the rollout stopped
// while its files are those of HEAD (a "change" wait).
func (fl *Flight) readHistory(ctx context.Context, g git.Runner, rec *record.Entries, po promote.Options) error {
	out, err := g.Run(ctx, "log", "-1", "--format=%H%x00%ct%x00%s", "HEAD", "--", PatchFiles(po.ClusterType, po.Component, po.Patch))
	if err != nil {
		return err
	}
	if fields := strings.SplitN(strings.TrimSpace(out), "\x00", 3); len(fields) == 3 {
		secs, err := strconv.ParseInt(fields[1], 10, 64)
		if err != nil {
			return fmt.Errorf("git log: commit %.12s has time %q", fields[0], fields[1])
		}
		fl.Step = &Commit{Commit: fields[0], At: time.Unix(secs, 0).UTC(), Subject: fields[2]}
	}
	id := po.ClusterType + "/" + po.Component + "/" + strings.TrimSuffix(po.Patch, ".yaml")
	// A later pass lifts a failure where the rollout's own reading does
	// (rollout's stopped): at the failed step's node, or with the patch's
	// files changed since (to HEAD's, on which the failure no longer
	// holds: record.Entries.Holds); a pass at the node a revert brought
	// the patch back to, or one of a run that raced the failure, does not
	// (its files are those the revert, recorded or not, brought back).
	files, ferr := record.FilesOf(ctx, g, "HEAD", id)
	var passes []record.Entry
	for _, e := range rec.Of(id) {
		if e.Kind == record.KindPassed && rec.Trusted(ctx, e) == nil { // a forged pass lifts nothing
			passes = append(passes, e)
		}
		if e.Kind != record.KindFailed && e.Kind != record.KindReverted {
			continue
		}
		if slices.ContainsFunc(passes, func(p record.Entry) bool {
			return p.Node == e.Node || p.PatchFiles == files && !rec.Holds(ctx, e, files)
		}) {
			return nil // a later step passed
		}
		if rec.Trusted(ctx, e) != nil {
			continue
		}
		held := ferr == nil && rec.Holds(ctx, e, files)
		e.Step, e.Revert = rec.CommitsOf(ctx, e) // the branch's (copies, after a rewrite)
		reason := strings.Join(e.Failures, "; ")
		if reason == "" {
			reason = "the step failed (the record gives no reason)"
		}
		fl.LastFailure = &Failed{Source: "step", Commit: e.Step, At: e.At, Reason: reason}
		if e.Kind == record.KindReverted {
			fl.LastFailure.Source, fl.LastFailure.Commit = "revert", e.Revert
		}
		if held {
			fl.Waits = append(fl.Waits, Wait{Kind: "change", Node: e.Node, Message: fmt.Sprintf(
				"a change of the patch's files: the step to %s (%.12s) failed and the rollout stays stopped", e.Node, e.Step)})
		}
		return nil
	}
	return nil
}

// liveWait adds the wait for the patch's Applications not healthy yet
// (and a failure among them as its last); it returns when they all became
// healthy as Argo CD says (zero: it does not), and whether some are not.
func (fl *Flight) liveWait(f *fleet.Fleet, rep *live.Report, po promote.Options, locs []string) (time.Time, bool) {
	var since time.Time
	total, done, unread, known := 0, 0, 0, true
	var failed []string
	for _, cell := range rep.Cells {
		if cell.ClusterType != po.ClusterType || cell.Component != po.Component {
			continue
		}
		for _, st := range cell.Apps {
			c := f.Cluster(st.Cluster)
			if c == nil || c.Target == nil || !Under(c.Target.ID(), locs) {
				continue
			}
			total++
			switch st.State {
			case live.Healthy:
				done++
			case live.Unreachable:
				unread++
			case live.Failed, live.Degraded:
				failed = append(failed, fmt.Sprintf("%s on %s is %s: %s", st.Name, st.Cluster, st.State, st.Reason))
			}
			if t := HealthySince(st); t.IsZero() {
				known = false
			} else if t.After(since) {
				since = t
			}
		}
	}
	if len(failed) > 0 {
		slices.Sort(failed)
		fl.LastFailure = &Failed{Source: "live", Reason: strings.Join(failed, "; ")}
	}
	if done < total {
		msg := fmt.Sprintf("%d of %d Applications to be synced and healthy", total-done, total)
		if unread > 0 {
			msg += fmt.Sprintf(" (%d unread: their Argo CD is unreachable)", unread)
		}
		fl.Waits = append(fl.Waits, Wait{Kind: "sync", Node: fl.At, Message: msg})
		return time.Time{}, true
	}
	if !known {
		return time.Time{}, false
	}
	return since, false
}
