package rollout

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/strata-fleet/strata/internal/action"
	"github.com/strata-fleet/strata/internal/output"
	"github.com/strata-fleet/strata/internal/promote"
)

// MaxReplays bounds how many times a step is replayed on a remote that
// moved before its push.
const MaxReplays = 5

// DefaultPushBackoff is the wait before the first replay; it doubles for
// each further one.
const DefaultPushBackoff = time.Second

// pause waits d, or until ctx ends (its cause): the backoff before a push
// is tried again.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}

// ConflictError is a step that cannot be replayed on the new upstream:
// someone changed the same patch or node meanwhile. That patch's rollout
// stops; nothing of it was pushed.
type ConflictError struct {
	Step string
	// Remote is "<remote> <branch>", Upstream the commit it moved to.
	Remote, Upstream string
	Reason           string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("the step to %s was not pushed: %s moved meanwhile (now %.12s) and %s; look at what changed (git log), then run the rollout again",
		e.Step, e.Remote, e.Upstream, e.Reason)
}

// remake makes st's step again on HEAD, reset to upstream, the remote
// branch's new commit (git reset --keep: every commit others pushed is
// kept, the step's old commit dropped): the step is planned and made
// there with action.Step.Run, never a textual rebase of rendered/. base
// is the commit the step was made on before (what others changed is
// base..upstream). again is false when upstream already has the step
// (someone made it): it is not made twice, st becomes that commit's. A
// change of the same patch or node upstream is a *ConflictError.
func (r *runner) remake(ctx context.Context, plan *promote.Plan, st *step, c action.Commit, base, upstream string) (subject string, again bool, err error) {
	own, err := r.repo.run(ctx, "diff", "--relative", "--name-only", st.commit+"^", st.commit, "--", "config")
	if err != nil {
		return "", false, err
	}
	theirs, err := r.repo.run(ctx, "diff", "--relative", "--name-only", base, upstream, "--", "config/"+r.opts.ClusterType+"/"+r.opts.Component)
	if err != nil {
		return "", false, err
	}
	old := st.commit
	conflict := func(reason string) error {
		return &ConflictError{Step: st.node, Remote: r.repo.remote + " " + r.repo.branch, Upstream: upstream, Reason: reason}
	}
	touched := slices.DeleteFunc(lines(theirs), func(p string) bool { return !r.samePatchOrNode(p, st.node) })
	f, err := r.load()
	if err != nil {
		return "", false, err
	}
	// What others pushed may be this very step, failed and reverted
	// (their record fetched with the branch): not made again.
	if err := r.stopped(ctx, st.node); err != nil {
		r.emitStopped(err)
		return "", false, err
	}
	act := r.action()
	var next *promote.Plan
	if plan != nil {
		next, err = r.prepare(f)
		if err != nil && plan.Integrated != "" && len(locations(f, r.opts)) == 0 {
			// The patch is gone upstream: someone (another approver)
			// folded it. The same fold is the step already made.
			if made, merr := r.sameStepUpstream(ctx, plan, upstream); merr != nil || made {
				if merr != nil {
					return "", false, merr
				}
				return r.madeUpstream(ctx, plan, st, upstream)
			}
		}
		switch {
		case errors.Is(err, errGate):
			return "", false, conflict("the step now enters a manual gate this run was not given")
		case errors.Is(err, promote.ErrNothingToDo) || err == nil && next.Target != plan.Target && slices.Contains(next.Found, plan.Target):
			return r.madeUpstream(ctx, plan, st, upstream)
		case err != nil:
			return "", false, conflict(err.Error())
		case len(touched) > 0:
			return "", false, conflict("it changed " + strings.Join(touched, ", "))
		case promote.Subject(next) != promote.Subject(plan):
			return "", false, conflict(fmt.Sprintf("the step would now be %q", promote.Subject(next)))
		}
	} else {
		if len(touched) > 0 {
			return "", false, conflict("it changed " + strings.Join(touched, ", "))
		}
		// The patch's first copy: its own files, as the step committed them.
		if own != "" {
			if _, err := r.repo.run(ctx, append([]string{"checkout", old, "--"}, lines(own)...)...); err != nil {
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

// sameStepUpstream reports whether upstream's last commit of the patch's
// files is plan's step (its subject begins with promote.Subject's).
func (r *runner) sameStepUpstream(ctx context.Context, plan *promote.Plan, upstream string) (bool, error) {
	subject, err := r.repo.run(ctx, "log", "-1", "--format=%s", upstream, "--", PatchFiles(r.opts.ClusterType, r.opts.Component, r.opts.Patch))
	if err != nil {
		return false, err
	}
	subject, want := strings.TrimSpace(subject), promote.Subject(plan)
	return subject == want || strings.HasPrefix(subject, want+":"), nil
}

// madeUpstream takes the step as upstream made it: the last commit there
// that changed the patch's files, waited for like the step's own. A step
// into a manual gate (plan's Gates) names who approved it there.
func (r *runner) madeUpstream(ctx context.Context, plan *promote.Plan, st *step, upstream string) (string, bool, error) {
	f, err := r.load()
	if err != nil {
		return "", false, err
	}
	commit, err := r.repo.run(ctx, "log", "-1", "--format=%H", upstream, "--", "config/"+r.opts.ClusterType+"/"+r.opts.Component)
	if err != nil {
		return "", false, err
	}
	files, err := r.repo.run(ctx, "diff-tree", "--no-commit-id", "--relative", "--name-only", "-r", commit, "--", f.Config.OutputRoot())
	if err != nil {
		return "", false, err
	}
	var ids []string
	for _, p := range lines(files) {
		if id := output.TargetOf(f.Config, p); id != "" && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	subject, err := r.repo.run(ctx, "log", "-1", "--format=%s", commit)
	if err != nil {
		return "", false, err
	}
	st.commit, st.targets = commit, targetsOf(f, ids)
	msg := fmt.Sprintf("the remote moved (now %.12s) and already has the step: it is not made twice", upstream)
	if plan != nil && len(plan.Gates) > 0 {
		body, err := r.repo.run(ctx, "log", "-1", "--format=%B", commit)
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

func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
