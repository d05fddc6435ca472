package rollout

import (
	"context"
	"errors"
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
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if r.reachedUntil(f) {
			r.res.Stopped = StoppedUntil
			r.emit(Event{Kind: KindDone, Step: r.opts.Until, Message: "dry run: every target under " + r.opts.Until + " would have " + r.opts.Patch})
			return nil
		}
		plan, err := r.prepare(f)
		switch {
		case errors.Is(err, errGate):
			return nil
		case errors.Is(err, promote.ErrNothingToDo):
			r.res.Stopped = StoppedDone
			r.emit(Event{Kind: KindDone, Message: "dry run: " + r.opts.Patch + " would be rolled out"})
			return nil
		case err != nil:
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
		r.emit(ev)
		for _, op := range plan.Ops {
			if op.Kind == "remove" {
				delete(mem, op.Path)
			} else {
				mem[op.Path] = &fstest.MapFile{Data: op.Data}
			}
		}
		if plan.Integrated != "" {
			r.res.Stopped = StoppedDone
			r.emit(Event{Kind: KindDone, Message: "dry run: " + r.opts.Patch + " would be rolled out and folded into " + plan.Integrated})
			return nil
		}
		if f, err = fleet.LoadComponent(mem, r.opts.ClusterType, r.opts.Component); err != nil {
			return err
		}
	}
}
