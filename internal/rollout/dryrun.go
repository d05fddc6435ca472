package rollout

import (
	"context"
	"io/fs"
	"testing/fstest"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/promote"
)

// dryRun lists the steps the rollout would take, promoting in memory (on
// a copy of config/) and changing nothing. Gates stop it as they stop the
// rollout.
func (r *runner) dryRun(ctx context.Context, f *fleet.Fleet) error {
	mem := fstest.MapFS{}
	err := fs.WalkDir(r.fsys, "config", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(r.fsys, p)
		mem[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		return err
	}
	for _, p := range f.Config.ChartFiles(r.fsys) { // what makes charts: components
		data, err := fs.ReadFile(r.fsys, p)
		if err != nil {
			return err
		}
		mem[p] = &fstest.MapFile{Data: data}
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		plan, err := r.next(f)
		if err != nil || plan == nil {
			return err
		}
		if err := r.watchablePlan(f, plan); err != nil {
			return err
		}
		node := stepNode(plan)
		pol := r.policyAt(f, node)
		ev := Event{Kind: KindPlanned, Step: node, Message: promote.Subject(plan), Gates: plan.Gates,
			Soak: pol.Soak.String(), Timeout: pol.Timeout.String()}
		for _, c := range pol.Checks {
			ev.Checks = append(ev.Checks, c.Name)
		}
		plannedWave(&ev, plan, pol)
		r.emit(ev)
		for _, op := range plan.Ops {
			if op.Kind == "remove" {
				delete(mem, op.Path)
			} else {
				mem[op.Path] = &fstest.MapFile{Data: op.Data}
			}
		}
		if plan.Integrated != "" {
			r.done(StoppedDone, "", "", r.opts.Patch+" would be rolled out and folded into "+plan.Integrated)
			return nil
		}
		if f, err = fleet.LoadComponent(mem, r.opts.ClusterType, r.opts.Component); err != nil {
			return err
		}
	}
}
