package rollout

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/output"
	"github.com/strata-fleet/strata/internal/promote"
	"github.com/strata-fleet/strata/internal/rollout/inflight"
	"github.com/strata-fleet/strata/internal/rollout/writer"
)

// remake makes st's step again with action.Step.Run on HEAD, reset to
// upstream (never a textual rebase of rendered/); base is where it was
// made before. again is false when upstream has the step already: st
// becomes that commit's. A change of the same patch or node upstream is
// a *ConflictError.
func (r *runner) remake(ctx context.Context, st *step, base, upstream string) (subject string, again bool, err error) {
	plan, c := st.plan, st.c
	own, err := r.repo.Git.Out(ctx, "diff", "--relative", "--name-only", st.commit+"^", st.commit, "--", "config")
	if err != nil {
		return "", false, err
	}
	theirs, err := r.repo.Git.Out(ctx, "diff", "--relative", "--name-only", base, upstream, "--", "config/"+r.opts.ClusterType+"/"+r.opts.Component)
	if err != nil {
		return "", false, err
	}
	old := st.commit
	conflict := func(reason string) error {
		return &writer.ConflictError{Step: st.node, Remote: r.repo.Remote + " " + r.repo.Branch, Upstream: upstream, Reason: reason}
	}
	touched := slices.DeleteFunc(writer.Lines(theirs), func(p string) bool { return !r.samePatchOrNode(p, st.node) })
	f, err := r.load()
	if err != nil {
		return "", false, err
	}
	if err := r.stopped(ctx, st.node); err != nil { // failed and reverted there
		r.emitStopped(err)
		return "", false, err
	}
	act := r.action()
	var next *promote.Plan
	if plan != nil {
		var upstreamHas bool
		if next, upstreamHas, err = r.replan(ctx, plan, f, upstream, touched, conflict); err != nil {
			return "", false, err
		}
		if upstreamHas {
			return r.madeUpstream(ctx, plan, st, upstream)
		}
	} else { // the first copy: its own files, as the step committed them
		if len(touched) > 0 {
			return "", false, conflict("it changed " + strings.Join(touched, ", "))
		}
		if own != "" {
			if _, err := r.repo.Git.Out(ctx, append([]string{"checkout", old, "--"}, writer.Lines(own)...)...); err != nil {
				return "", false, err
			}
		}
	}
	_, done, err := act.Run(ctx, next, c)
	if err != nil {
		return "", false, err
	}
	st.commit, st.targets = done.Commit, targetsOf(f, done.Changed)
	r.emit(Event{Kind: KindReplayed, Step: st.node, Commit: st.commit,
		Message: fmt.Sprintf("the remote moved (now %.12s): the step is made again on it, replacing %.12s", upstream, old)})
	subject, _, _ = strings.Cut(done.Message, "\n")
	return subject, true, nil
}

// replan plans plan's step again on upstream (f): upstreamHas when it has
// the step already; a conflict when it cannot be made there as it was
// (touched: upstream's changes of the same patch or node).
func (r *runner) replan(ctx context.Context, plan *promote.Plan, f *fleet.Fleet, upstream string, touched []string,
	conflict func(string) error) (next *promote.Plan, upstreamHas bool, err error) {
	next, err = r.prepare(f)
	if err != nil && plan.Integrated != "" && len(r.locations(f)) == 0 { // folded upstream
		if made, merr := r.sameStepUpstream(ctx, plan, upstream); merr != nil || made {
			return nil, made, merr
		}
	}
	switch {
	case plan.Target != "" && inflight.Under(plan.Target, r.locations(f)):
		return nil, true, nil // at the step's node or further
	case errors.Is(err, errGate):
		return nil, false, conflict("the step now enters a manual gate this run was not given")
	case errors.Is(err, promote.ErrNothingToDo) || err == nil && next.Target != plan.Target && slices.Contains(next.Found, plan.Target):
		return nil, true, nil
	case err != nil:
		return nil, false, conflict(err.Error())
	case len(touched) > 0:
		return nil, false, conflict("it changed " + strings.Join(touched, ", "))
	case promote.Subject(next) != promote.Subject(plan):
		return nil, false, conflict(fmt.Sprintf("the step would now be %q", promote.Subject(next)))
	}
	return next, false, nil
}

// sameStepUpstream reports whether upstream's last commit of the patch's
// files is plan's step (its subject begins with promote.Subject's).
func (r *runner) sameStepUpstream(ctx context.Context, plan *promote.Plan, upstream string) (bool, error) {
	subject, err := r.repo.Git.Out(ctx, "log", "-1", "--format=%s", upstream, "--", inflight.PatchFiles(r.opts.ClusterType, r.opts.Component, r.opts.Patch))
	if err != nil {
		return false, err
	}
	subject, want := strings.TrimSpace(subject), promote.Subject(plan)
	return subject == want || strings.HasPrefix(subject, want+":"), nil
}

// madeUpstream takes the step as upstream made it (its last commit of the
// patch's files), naming who approved a gate there.
func (r *runner) madeUpstream(ctx context.Context, plan *promote.Plan, st *step, upstream string) (string, bool, error) {
	f, err := r.load()
	if err != nil {
		return "", false, err
	}
	commit, err := r.repo.Git.Out(ctx, "log", "-1", "--format=%H", upstream, "--", "config/"+r.opts.ClusterType+"/"+r.opts.Component)
	if err != nil {
		return "", false, err
	}
	files, err := r.repo.Git.Out(ctx, "diff-tree", "--no-commit-id", "--relative", "--name-only", "-r", commit, "--", f.Config.OutputRoot())
	if err != nil {
		return "", false, err
	}
	var ids []string
	for _, p := range writer.Lines(files) {
		if id := output.TargetOf(f.Config, p); id != "" && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	subject, err := r.repo.Git.Out(ctx, "log", "-1", "--format=%s", commit)
	if err != nil {
		return "", false, err
	}
	st.commit, st.targets = commit, targetsOf(f, ids)
	msg := fmt.Sprintf("the remote moved (now %.12s) and already has the step: it is not made twice", upstream)
	if plan != nil && len(plan.Gates) > 0 {
		body, err := r.repo.Git.Out(ctx, "log", "-1", "--format=%B", commit)
		if err != nil {
			return "", false, err
		}
		if by := trailers(body, "Approved-by"); len(by) > 0 {
			msg += "; already approved by " + strings.Join(by, ", ")
		}
	}
	r.emit(Event{Kind: KindReplayed, Step: st.node, Commit: commit, Message: msg})
	return subject, false, nil
}

// samePatchOrNode reports whether the file p (under the component's
// directory) is one of the patch's copies or lies in the step's node.
func (r *runner) samePatchOrNode(p, node string) bool {
	dir := "config/" + r.opts.ClusterType + "/" + r.opts.Component + "/"
	rest, ok := strings.CutPrefix(p, dir)
	if !ok {
		return false
	}
	name := strings.TrimSuffix(r.opts.Patch, ".yaml") + ".yaml"
	return strings.HasSuffix(rest, "/"+name) || rest == name || node != "" && strings.HasPrefix(rest, node+"/")
}
