package rollout

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/record"
)

// A rollout's last step can remove the patch's files: the fold into
// values.yaml, or the revert of its first step. The patch is then no
// longer in the fleet (InFlight), yet its rollout is not over: the fold
// still has its wait, soak and checks, which may fail it, and a revert is
// a failure to report. Both are read from strata's record (record.go):
// the last commit that changed the patch's files is a step strata
// recorded (the fold) or strata's recorded revert of one. Settling lists
// the candidates from the commits' trailers; only the record settles them.

// PatchFiles is the Git pathspec of a patch's files at every node of its
// component: the commits that changed it are the patch's steps.
func PatchFiles(clusterType, component, patch string) string {
	return ":(glob)config/" + clusterType + "/" + component + "/**/" + strings.TrimSuffix(patch, ".yaml") + ".yaml"
}

// gone settles a rollout whose patch has no files left (locations is
// empty), from the last commit that changed them, as strata's record
// knows it: a fold this rollout made and recorded is waited for, soaked
// and checked as its last step (a failure there is the fold's, reverted
// with Options.Revert), unless its verdict is recorded; strata's revert of
// a step is the failure it was. ok is false when the commit is neither in
// the record (no such commit, a fold made by hand or by promote, a
// person's revert): the caller goes on and promote says what it knows of
// the patch.
func (r *runner) gone(ctx context.Context) (ok bool, err error) {
	last, err := r.repo.run(ctx, "log", "-1", "--format=%H", "--", PatchFiles(r.opts.ClusterType, r.opts.Component, r.opts.Patch))
	if err != nil || last == "" {
		return false, err
	}
	rec, err := r.rec().Read(ctx)
	if err != nil {
		return false, err
	}
	var fold *record.Entry
	for _, e := range rec.Of(r.patchID()) {
		if (e.Kind == record.KindReverted && e.Revert == last || e.Step == last) && rec.Trusted(ctx, e) == nil {
			if e.Kind == record.KindReverted || e.Kind == record.KindFailed {
				what := "failed"
				if e.Revert != "" {
					what = fmt.Sprintf("was reverted by %.12s", e.Revert)
				}
				failures := []Failure{{Reason: fmt.Sprintf("the step %s (recorded in %s); the rollout stays stopped until the patch's files change",
					what, record.Ref)}}
				for _, reason := range e.Failures {
					failures = append(failures, Failure{Reason: reason})
				}
				se := &StepError{Step: e.Node, Commit: e.Step, Reverted: e.Revert, Failures: failures, Recorded: true}
				r.emitStopped(se)
				return true, se
			}
			if e.Kind == record.KindPassed {
				r.done(StoppedDone, "", r.opts.Patch+" is rolled out and folded", "")
				return true, nil
			}
			if fold == nil {
				fold = &e
			}
		}
	}
	if fold == nil {
		return false, nil
	}
	f, err := r.load()
	if err != nil {
		return false, err
	}
	ids := fold.Targets
	st := &step{node: lastNode(ids, r.opts.ClusterType), settle: true, revert: last, own: last, targets: targetsOf(f, ids)}
	if st.node == "" {
		r.done(StoppedDone, "", r.opts.Patch+" is folded and no target's rendered output changed", "")
		return true, nil
	}
	st.policy = r.foldPolicy(f, ids)
	// The objects to wait for are those whose rendered file changed last
	// at or after the fold (a later commit over them contains it).
	var dirs []string
	for _, id := range ids {
		if dir, ok := f.Config.TargetDirOf(id); ok || f.Config.Layout.Default() {
			dirs = append(dirs, dir)
		}
	}
	if len(dirs) == 0 { // no target of the fold is in the layout any more
		dirs = []string{f.Config.OutputRoot()}
	}
	if st.commit, err = r.repo.run(ctx, append([]string{"log", "-1", "--format=%H", "--"}, dirs...)...); err != nil {
		return true, err
	}
	st.pick = pickClusters(f, func(c *fleet.Cluster) bool { return slices.Contains(ids, c.Type+"/"+c.Target.ID()) })
	if err := r.reach(ctx); err != nil {
		return true, err
	}
	r.emit(Event{Kind: KindStart, Step: st.node, Commit: last, Targets: ids,
		Message: fmt.Sprintf("%s is folded by %.12s: waiting for its last step's targets", r.opts.Patch, last)})
	if err := r.verify(ctx, st); err != nil {
		return true, r.failed(ctx, st, err)
	}
	r.done(StoppedDone, "", r.opts.Patch+" is rolled out and folded", "")
	return true, nil
}

// revertOf is the commit a revert's message (git revert's) names.
func revertOf(body string) (string, bool) {
	_, rest, ok := strings.Cut(body, "This reverts commit ")
	if !ok {
		return "", false
	}
	return strings.TrimRight(strings.Fields(rest + " ")[0], "."), true
}

// lastNode is the node of the last of ids (<cluster type>/<node>): the
// node the events name for the step (its policy is foldPolicy's).
func lastNode(ids []string, clusterType string) string {
	if len(ids) == 0 {
		return ""
	}
	return strings.TrimPrefix(ids[len(ids)-1], clusterType+"/")
}

// Settling lists the patches whose files the last step of their rollout
// removed (a fold, or the revert of the first step) within the longest
// window a step's verdict can take at now: twice the longest timeout of
// the sequence plus its longest soak (Options' overrides applied), from
// the step's commit time. Their runs settle that step (exit 6 while it
// soaks, 0 once done, 1 failed), so that rollout --all --once and a
// runner check them as they check a patch in flight. The margin of one
// more timeout lets a scheduled job that runs less often still see the
// verdict; past the window the listing drops them.
func Settling(ctx context.Context, g Git, f *fleet.Fleet, opts Options, now time.Time) ([]string, error) {
	var window time.Duration
	f.Config.Root.Walk(func(n *fleet.Node) {
		p := opts.overridden(f.Config.RolloutAt(n))
		window = max(window, 2*p.Timeout+p.Soak)
	})
	out, err := g.Run(ctx, "log", "--since=@"+strconv.FormatInt(now.Add(-window).Unix(), 10), "-E",
		"--grep=^Strata-(Rollout|Failed): ", "--format=%H%x00%B%x1e")
	if err != nil {
		return nil, err
	}
	inFlight := InFlight(f)
	var ids []string
	seen := map[string]bool{}
	for _, rec := range strings.Split(out, "\x1e") {
		commit, body, ok := strings.Cut(strings.TrimSpace(rec), "\x00")
		if !ok {
			continue
		}
		if step, ok := revertOf(body); ok {
			if body, err = g.Run(ctx, "log", "-1", "--format=%B", step); err != nil {
				return nil, err
			}
		}
		id := ""
		if v := trailers(body, "Strata-Rollout"); len(v) > 0 {
			id = v[0]
		}
		if id == "" || seen[id] || slices.Contains(inFlight, id) {
			continue
		}
		seen[id] = true // the newest commit of id: its last step, or none
		if !knownRollout(f, id) {
			continue // a trailer written by hand: a glob, a name f does not have
		}
		parts := strings.SplitN(id, "/", 3)
		last, err := g.Run(ctx, "log", "-1", "--format=%H", "--", PatchFiles(parts[0], parts[1], parts[2]))
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(last) == commit {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// trailers are the values of the lines "key: value" of a commit
// message body, in order: every reader of strata's trailers reads them
// here.
func trailers(body, key string) []string {
	var out []string
	for l := range strings.SplitSeq(body, "\n") {
		if v, ok := strings.CutPrefix(l, key+": "); ok {
			out = append(out, strings.TrimSpace(v))
		}
	}
	return out
}
