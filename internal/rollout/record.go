package rollout

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/record"
	"github.com/strata-fleet/strata/internal/rollout/writer"
)

// The rollout writes delivery's record as it acts (a step pushed, its
// verdict, strata's revert) and reads it, and nothing else (no note,
// trailer or revert message), to reuse the checks a step passed
// (reusable) and to keep a failed step failed until its patch's files
// change (stopped).

// Record is the record of the rollout's repository and remote, fetched
// one at a time with the rollouts' fetches.
func (r *runner) Record() *record.Log {
	return &record.Log{Git: r.env.Git, Dir: r.env.Dir, Remote: r.repo.Remote, Backoff: r.env.PushBackoff,
		Fetch: func(ctx context.Context, args ...string) error {
			return writer.Fetch(ctx, r.env.Dir, r.env.Git, args...)
		},
		Exclusive: func(f func() error) error { return writer.WithFetches(r.env.Dir, f) }}
}

// stepEntry is the record of st, pushed: the rendered output of its
// targets at its commit and its patch's files, by content.
func (r *runner) stepEntry(ctx context.Context, st *step, kind string) (record.Entry, error) {
	e := record.Entry{Kind: kind, Patch: r.ID(), Node: st.node, Step: r.entryStep(ctx, st), Targets: targetIDs(st.targets),
		Wave: r.waveOf(st.node), At: r.env.Clock.Now().UTC().Truncate(time.Second)}
	cfg, err := r.configNow()
	if err != nil {
		return e, err
	}
	if !cfg.Layout.Default() {
		for _, id := range e.Targets {
			if paths, ok := cfg.TargetPathsOf(id); ok {
				e.Dirs = append(e.Dirs, paths...) // with its values file
			}
		}
	}
	if st.tree == "" || e.Step != st.commit {
		tree := ""
		if len(e.Dirs) > 0 {
			tree, err = record.TreeAt(ctx, r.env.Git, e.Step, e.Dirs)
		} else {
			tree, err = record.TreeOf(ctx, r.env.Git, e.Step, e.Targets)
		}
		if err != nil {
			return e, err
		}
		if e.Step == st.commit {
			st.tree = tree
		}
		e.Tree = tree
	} else {
		e.Tree = st.tree
	}
	e.PatchFiles, err = record.FilesOf(ctx, r.env.Git, st.commit, r.ID())
	return e, err
}

// entryStep is the step commit st's entries name: for a settle whose
// targets another patch changed since, the patch's own last commit
// (st.own) when its trailer is this patch's (a record naming the other's
// is not trusted); else st.commit.
func (r *runner) entryStep(ctx context.Context, st *step) string {
	if st.own == "" || st.own == st.commit {
		return st.commit
	}
	body, err := r.repo.Git.Out(ctx, "log", "-1", "--format=%B", st.own)
	if err != nil || !slices.Contains(trailers(body, "Strata-Rollout"), r.ID()) {
		return st.commit
	}
	return st.own
}

// waveOf is the nodes of the wave a step entered at node (enterWave), nil
// for a wave of one.
func (r *runner) waveOf(node string) []string {
	r.emitMu.Lock()
	defer r.emitMu.Unlock()
	return r.waves[node]
}

// recordVerdict records how st ended and the checks it ran; one that
// cannot be written is an error (a later run would not know it).
func (r *runner) recordVerdict(ctx context.Context, st *step, kind string, failures []Failure) error {
	if st.commit == "" {
		return nil
	}
	e, err := r.stepEntry(ctx, st, kind)
	if err == nil {
		e.Checks, e.Failures = st.checks, failureLines(st.node, failures)
		err = r.Record().Append(ctx, e)
	}
	if err != nil {
		return fmt.Errorf("recording that the step to %s (%.12s) %s: %w", st.node, st.commit, kind, err)
	}
	return nil
}

// recordRevert records strata's revert of st's failed step.
func (r *runner) recordRevert(ctx context.Context, st *step, revert string, failures []Failure) error {
	e, err := r.stepEntry(ctx, st, record.KindReverted)
	if err == nil {
		e.Revert, e.Checks, e.Failures = revert, st.checks, failureLines(st.node, failures)
		if e.PatchFiles, err = record.FilesOf(ctx, r.env.Git, revert, r.ID()); err == nil {
			err = r.Record().Append(ctx, e)
		}
	}
	if err != nil {
		return fmt.Errorf("recording the revert %.12s of the step to %s: %w", revert, st.node, err)
	}
	return nil
}

// failureLines are the failures of the step to node as the record gives
// them, one line each.
func failureLines(node string, failures []Failure) []string {
	var out []string
	for _, f := range failures {
		out = append(out, node+": "+failureLine(f))
	}
	return out
}

// failureLine is a failure on one line (at most 300 characters of reason).
func failureLine(f Failure) string {
	reason := strings.Join(strings.Fields(f.Reason), " ")
	if r := []rune(reason); len(r) > 300 {
		reason = string(r[:300]) + "..."
	}
	switch {
	case f.App != "":
		return fmt.Sprintf("Application %s on %s: %s", f.App, f.Cluster, reason)
	case f.Check != "":
		return fmt.Sprintf("check %s: %s", f.Check, reason)
	}
	return reason
}

// reusable are the checks st passed in an earlier run, by name and
// definition, in strata's trusted record of this patch at this step's
// commit; none with Options.RerunChecks.
func (r *runner) reusable(ctx context.Context, st *step) map[string]record.Entry {
	out := map[string]record.Entry{}
	if r.opts.RerunChecks || st.commit == "" || len(st.policy.Checks) == 0 {
		return out
	}
	rec, err := r.Record().Read(ctx)
	if err != nil {
		r.log("reading %s: %v; the checks run again", record.Ref, err)
		return out
	}
	for _, e := range rec.Of(r.ID()) {
		if e.Step != st.commit && e.Step != r.entryStep(ctx, st) {
			continue
		}
		if err := rec.Trusted(ctx, e); err != nil {
			r.log("ignored: %v", err)
			continue
		}
		for _, c := range e.Checks {
			if _, ok := out[c.Name+"\x00"+c.Definition]; c.Passed && !ok {
				out[c.Name+"\x00"+c.Definition] = e
			}
		}
	}
	return out
}

// stopped reports, for the patch as HEAD has it, a failure strata
// recorded (a failed step, its revert) while the patch's files are still
// what they were then, or, the step undone, before it (record.Entries.Holds):
// the rollout stays stopped there, failed, until the patch changes, in
// every mode, rather than taking the same step again.
// A revert or failure strata did not record (a person's git revert)
// stops nothing.
func (r *runner) stopped(ctx context.Context, node string) error {
	rec, err := r.Record().Read(ctx)
	if err != nil {
		return err
	}
	files, err := record.FilesOf(ctx, r.env.Git, "HEAD", r.ID())
	if err != nil {
		return err
	}
	// A pass lifts a failure only at the failed step's own node.
	passed := map[string]bool{}
	var undone *record.Entry // a failed step undone since, its revert's record missing
	for _, e := range rec.Of(r.ID()) {
		if e.Kind != record.KindFailed && e.Kind != record.KindReverted {
			if e.Kind == record.KindPassed && e.PatchFiles == files && rec.Trusted(ctx, e) == nil {
				passed[e.Node] = true
			}
			continue
		}
		same := e.PatchFiles == files
		if !same && (e.Kind != record.KindFailed || undone != nil) {
			continue // the patch changed since
		}
		if same && passed[e.Node] {
			return nil // the failed step passed since: a newer verdict
		}
		if err := rec.Trusted(ctx, e); err != nil {
			if same {
				r.log("ignored: %v", err)
			}
			continue
		}
		if !same {
			// Held (record.Entries.Holds) unless the patch changed; its
			// revert's own entry, recorded in the same second, says more.
			if rec.Holds(ctx, e, files) {
				undone = &e
			}
			continue
		}
		return r.recordedStop(ctx, rec, e, "")
	}
	if undone != nil {
		return r.recordedStop(ctx, rec, *undone, ", and was undone since")
	}
	return nil
}

// recordedStop is the failure e keeps the rollout stopped with, named by
// the commits of the branch (copies, where a rewrite made them again).
func (r *runner) recordedStop(ctx context.Context, rec *record.Entries, e record.Entry, since string) error {
	e.Step, e.Revert = rec.CommitsOf(ctx, e)
	what := fmt.Sprintf("the step failed at %s (recorded in %s)%s", e.At.UTC().Format(time.RFC3339), record.Ref, since)
	if e.Kind == record.KindReverted {
		what = fmt.Sprintf("the step was reverted by %.12s (recorded in %s)", e.Revert, record.Ref)
	}
	return recordedFailure(e, what)
}

// recordedFailure is e, a recorded failure or revert, as it keeps the
// rollout stopped: what says what happened.
func recordedFailure(e record.Entry, what string) *StepError {
	failures := []Failure{{Reason: what + "; the rollout stays stopped until the patch's files change"}}
	for _, f := range e.Failures {
		failures = append(failures, Failure{Reason: f})
	}
	return &StepError{Step: e.Node, Commit: e.Step, Reverted: e.Revert, Failures: failures, Recorded: true}
}

// emitStopped says, as an event, the failure stopped found.
func (r *runner) emitStopped(err error) {
	if se := (*StepError)(nil); errors.As(err, &se) {
		r.emit(Event{Kind: KindFailed, Step: se.Step, Commit: se.Commit, Failures: se.Failures, Recorded: true,
			Message: "the step failed in an earlier run (recorded); the rollout stays stopped until the patch's files change"})
	}
}

// checkDefinition hashes what a check runs: its name, command, timeout
// and Prometheus query (not where config.yaml declares it).
func checkDefinition(c fleet.Check) string {
	h := sha256.New()
	fmt.Fprintf(h, "name %q\ncommand %q\ntimeout %s\n", c.Name, c.Command, c.Timeout)
	if p := c.Prometheus; p != nil {
		fmt.Fprintf(h, "prometheus %q %q\n", p.URL, p.Query)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// trailers are the values of the lines "key: value" of a commit body.
func trailers(body, key string) []string {
	var out []string
	for l := range strings.SplitSeq(body, "\n") {
		if v, ok := strings.CutPrefix(l, key+": "); ok {
			out = append(out, strings.TrimSpace(v))
		}
	}
	return out
}
