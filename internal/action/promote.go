package action

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/freeze"
	"github.com/strata-fleet/strata/internal/output"
	"github.com/strata-fleet/strata/internal/promote"
	"github.com/strata-fleet/strata/internal/render"
)

// Promote is strata promote: one promotion step of a patch (Options), or
// the completion of the promotion a journal records, re-rendered and, with
// Commit, committed. The caller holds the repository's lock unless DryRun.
type Promote struct {
	// Options says what to promote (ClusterType "": only complete an
	// interrupted promotion).
	Options promote.Options
	DryRun  bool
	// NoRender finishes the journal without re-rendering.
	NoRender bool
	// AllowUncommitted takes a step on top of the last one promote took
	// and nobody committed (see checkPreviousStep).
	AllowUncommitted bool
	// Commit commits the step (on Branch, created at HEAD when it does
	// not exist, when Branch is not "").
	Commit bool
	Branch string
	// GateCommand is the command line a *promote.GateError names, to run
	// once approved.
	GateCommand string
	// Retry says how to finish the promotion once a failed render is
	// fixed.
	Retry string
	// Rendered is output.Options.Rendered.
	Rendered func()
}

// Promoted is what a promotion did (or, with DryRun, would do).
type Promoted struct {
	// Pending is the unfinished promotion a dry run found: the run
	// shows it and does nothing else.
	Pending *promote.Journal
	// Resumed is the interrupted promotion the run completed; it is
	// then the run's only step.
	Resumed *promote.Plan
	Plan    *promote.Plan
	// Rendered is the re-render (nil with NoRender or DryRun).
	Rendered *output.Result
	// Commit is the step's commit, on Branch ("": a detached HEAD);
	// NewBranch says that the run created it.
	Commit    *Committed
	Branch    string
	NewBranch bool
}

// UsageError is a promotion refused until the command line changes
// (an approver to name, --allow-uncommitted).
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usageErrorf(format string, args ...any) error {
	return &UsageError{fmt.Errorf(format, args...)}
}

// Run promotes in r. The result is returned with an error too once an
// interrupted promotion was completed (Resumed), so that it can be said.
func (a *Promote) Run(ctx context.Context, r *Repo) (*Promoted, error) {
	ops, err := promote.NewDirOps(r.Dir)
	if err != nil {
		return nil, err
	}
	var on *onBranch
	res := &Promoted{}
	if a.Commit {
		pending, err := promote.Pending(ops)
		if err != nil {
			return nil, err
		}
		if on, err = a.startCommit(ctx, r, pending, res); err != nil {
			return nil, err
		}
	}
	opts := a.Options
	if done, err := a.unfinished(ops, &opts, res); err != nil || done {
		return res, err
	}
	var parsed *fleet.Config
	if opts.ClusterType != "" {
		if parsed, err = a.step(ctx, r, ops, on, opts, res); err != nil {
			return res, err
		}
	}
	if a.DryRun || (res.Plan == nil && res.Resumed == nil) {
		return res, nil
	}
	if err := a.finish(ctx, r, ops, on, res, parsed); err != nil {
		return res, err
	}
	if res.Plan != nil {
		return res, a.recordStep(r.Dir, res.Plan, res.Commit != nil || res.Plan.Integrated != "")
	}
	return res, nil
}

// step plans the promotion opts asks for on the component it loads,
// checks it (gates, freezes, the step left uncommitted, the approver) and,
// unless DryRun, applies it: res.Plan. It returns config.yaml as loaded.
func (a *Promote) step(ctx context.Context, r *Repo, ops promote.FileOps, on *onBranch, opts promote.Options, res *Promoted) (*fleet.Config, error) {
	f, err := r.LoadComponent(opts.ClusterType, opts.Component)
	if err != nil {
		return nil, err
	}
	p, err := promote.Prepare(f, opts)
	var gate *promote.GateError
	if errors.As(err, &gate) {
		gate.Command = a.GateCommand
		// A step that would be refused once approved is refused
		// now: nobody is asked for an approval that cannot be used.
		if err := a.checkStep(r, f.Config, gate.Target); err != nil {
			return nil, err
		}
	}
	if err != nil {
		return nil, err
	}
	if err := a.checkStep(r, f.Config, p.Target); err != nil {
		var fz *freeze.FrozenError
		if errors.As(err, &fz) && len(p.Approvals) > 0 && opts.Approve && !a.DryRun {
			return nil, a.keepApproval(ctx, r, on, p, fz)
		}
		return nil, err
	}
	if len(p.Gates) > 0 && opts.Approver == "" && len(p.Approvals) < len(p.Gates) { // none kept
		return nil, usageErrorf("promotion enters the manual gate %s: the approval is recorded with who approved; give --approver \"Name <email>\" or set git config user.name and user.email", strings.Join(p.Gates, ", "))
	}
	res.Plan = p
	if !a.DryRun {
		if err := (&Step{Ops: ops}).Apply(p); err != nil {
			return nil, err
		}
	}
	return f.Config, nil
}

// unfinished deals with the promotion recorded in the journal before this
// run's: a dry run shows it (and is done), a promotion of another patch is
// refused, anything else completes its file operations first (the
// re-render follows in finish). Completing the interrupted step is then
// this run's promotion: going on would take a second step (and pass
// gates) the user did not see.
func (a *Promote) unfinished(ops promote.FileOps, opts *promote.Options, res *Promoted) (done bool, err error) {
	pending, err := promote.Pending(ops)
	if err != nil || pending == nil {
		return false, err
	}
	if opts.ClusterType != "" && !pending.Is(opts.ClusterType, opts.Component, opts.Patch) {
		asked := &promote.Plan{ClusterType: opts.ClusterType, Component: opts.Component, Patch: opts.Patch}
		return false, &promote.PendingError{Journal: pending, Asked: asked}
	}
	if a.DryRun {
		res.Pending = pending
		return true, nil
	}
	j, err := promote.Resume(ops)
	if err != nil {
		return false, err
	}
	res.Resumed = j.Plan
	opts.ClusterType = ""
	return false, nil
}

// checkStep refuses a step to target that a freeze holds, or that would
// go on top of the previous step left uncommitted.
func (a *Promote) checkStep(r *Repo, cfg *fleet.Config, target string) error {
	if err := freeze.Guard(r.FS, cfg, target); err != nil {
		return err
	}
	return a.checkPreviousStep(r.Dir, target)
}

// finish re-renders what the promotion (res's plan, or the one resumed)
// changed, unless NoRender, ends its journal and, with Commit, commits
// the step on the branch on: Step's Render and Commit. parsed is
// config.yaml as the promotion loaded it (nil when resumed).
func (a *Promote) finish(ctx context.Context, r *Repo, ops promote.FileOps, on *onBranch, res *Promoted, parsed *fleet.Config) error {
	p := res.Plan
	if p == nil {
		p = res.Resumed
	}
	step := &Step{Dir: r.Dir, FS: r.FS, Ops: ops, Config: parsed, Rendered: a.Rendered, Retry: a.Retry}
	if a.NoRender {
		if err := promote.Finish(ops); err != nil {
			return err
		}
	} else {
		out, err := step.Render(p)
		if err != nil {
			return err
		}
		res.Rendered = out
	}
	if !a.Commit {
		return nil
	}
	done, err := step.Commit(ctx, p, Commit{Git: on.git, Paths: []string{"config/" + p.ClusterType + "/" + p.Component, render.OutputDir}})
	if err != nil {
		return fmt.Errorf("config/ is promoted and rendered but not committed (commit it yourself): %w", err)
	}
	res.Commit, res.Branch = done, on.landed(ctx)
	return nil
}

// startCommit checks, before anything changes, that the step's commit
// would take only the step's files (promote.Unrelated), then switches to
// Branch. pending is the promotion being completed, if any.
func (a *Promote) startCommit(ctx context.Context, r *Repo, pending *promote.Journal, res *Promoted) (*onBranch, error) {
	on := newOnBranch(r.Dir, a.Branch)
	if err := on.ready(ctx); err != nil {
		return nil, fmt.Errorf("--commit: %s is not in a Git repository with a commit: %w", r.Dir, err)
	}
	ct, comp, patch := a.Options.ClusterType, a.Options.Component, a.Options.Patch
	var ops []promote.Op
	if pending != nil {
		ct, comp, patch, ops = pending.Plan.ClusterType, pending.Plan.Component, pending.Plan.Patch, pending.Plan.Ops
	}
	cfg, err := fleet.ReadConfig(r.FS, nil)
	if err != nil {
		return nil, err
	}
	dirty, err := on.dirty(ctx, "config", cfg.OutputRoot())
	if err != nil {
		return nil, err
	}
	if other := promote.Unrelated(cfg.OutputRoot(), ct, comp, patch, ops, dirty); len(other) > 0 {
		return nil, fmt.Errorf("--commit: config/ has uncommitted changes that are not %s's own, and the step's commit would take them along or leave rendered/ in it out of step with config/; commit or stash them first (git stash push -- config), nothing was changed:\n  %s",
			patch, strings.Join(other, "\n  "))
	}
	if res.NewBranch, err = on.switchTo(ctx); err != nil {
		return nil, err
	}
	return on, nil
}

// ApprovalKeptError is a step into a frozen node that was approved: the
// approval is recorded in the patch's latest copy (its metadata) and
// taken once the freeze ends, by the next promote or rollout of the
// patch without --approve. It is the freeze's refusal (exit 4).
type ApprovalKeptError struct {
	Frozen    *freeze.FrozenError
	Approvals []promote.Approval
	// File is the copy that records them; Commit the commit that did
	// ("": not committed, without --commit).
	File, Commit string
}

func (e *ApprovalKeptError) Error() string {
	who := make([]string, len(e.Approvals))
	for i, a := range e.Approvals {
		who[i] = a.Node + " by " + a.By
	}
	kept := "uncommitted: commit it"
	if e.Commit != "" {
		kept = fmt.Sprintf("committed as %.12s", e.Commit)
	}
	return fmt.Sprintf("%s; the approval of %s is kept in %s (%s) and taken once the freeze ends: the next promote or rollout of the patch steps in without --approve",
		e.Frozen.Error(), strings.Join(who, ", "), e.File, kept)
}

func (e *ApprovalKeptError) Unwrap() error { return e.Frozen }

// keepApproval records p's approvals in the patch's latest copy (the
// step itself is refused: its node is frozen) and, with Commit, commits
// that file alone.
func (a *Promote) keepApproval(ctx context.Context, r *Repo, on *onBranch, p *promote.Plan, fz *freeze.FrozenError) error {
	file := p.Found[len(p.Found)-1]
	ops, err := promote.NewDirOps(r.Dir)
	if err != nil {
		return err
	}
	data, err := ops.ReadFile(file)
	if err != nil {
		return err
	}
	for _, ap := range p.Approvals {
		if data, err = promote.RecordApproval(data, ap); err != nil {
			return fmt.Errorf("recording the approval in %s: %w", file, err)
		}
	}
	if err := ops.WriteFile(file, data); err != nil {
		return err
	}
	kept := &ApprovalKeptError{Frozen: fz, Approvals: p.Approvals, File: file}
	if on == nil {
		return kept
	}
	trailers := make([]string, len(p.Approvals))
	gates := make([]string, len(p.Approvals))
	for i, ap := range p.Approvals {
		trailers[i], gates[i] = fmt.Sprintf("Approved-by: %s for %s", ap.By, ap.Node), ap.Node
	}
	msg := fmt.Sprintf("Approve %s of %s/%s for %s (frozen: taken once the freeze ends)\n\n%s\n",
		p.Patch, p.ClusterType, p.Component, strings.Join(gates, ", "), strings.Join(trailers, "\n"))
	done, err := on.commit(ctx, msg, file)
	if err != nil {
		return fmt.Errorf("the approval is recorded in %s but not committed (commit it yourself): %w", file, err)
	}
	kept.Commit = done.Commit
	return kept
}
