package action

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/output"
	"github.com/strata-fleet/strata/internal/promote"
	"github.com/strata-fleet/strata/internal/render"
)

// Step is one promotion step of a fleet repository's work tree: Apply,
// Render, Commit, in that order (Run does all three).
type Step struct {
	Dir string
	FS  fs.FS
	Ops promote.FileOps
	// Config is config.yaml as the promotion loaded it, so that the
	// render does not parse it again (nil: it does).
	Config *fleet.Config
	// Rendered is output.Options.Rendered (nil: nothing).
	Rendered func()
	// Stateless renders without the render state, for an FS that hides
	// files of the work tree (the state records what the render read).
	Stateless bool
	// Retry says how to finish the step once a failed render is fixed
	// ("run strata promote --resume to finish the promotion").
	Retry string
	// Applied says the plan is applied already (a promotion resumed from
	// its journal): Run renders and commits it.
	Applied bool
}

// Commit says how a step is committed.
type Commit struct {
	Git git.Repo
	// Paths are what the commit takes, and only that; render.OutputDir
	// among them stands for the fleet's rendered tree wherever its layout
	// puts it (fleet.Config.OutputRoot).
	Paths []string
	// Subject replaces promote.Subject(plan) (a rollout's first step,
	// the patch's first copy, has no plan to say it).
	Subject string
	// ClusterType and Component are the step's, when it has no plan.
	ClusterType, Component string
	// Meta is the patch's metadata, when the step has no plan.
	Meta *promote.PatchMeta
	// Trailers follow the Approved-by ones (Strata-Rollout).
	Trailers []string
	// Planned stages, of rendered/, only the directories the plan can
	// change (Plan.RenderedDirs), not all of Paths' rendered/: for a
	// caller whose work tree was clean before the step (rollout), so that
	// git walks the step's targets, not the fleet's.
	Planned bool
}

// Committed is a step's commit.
type Committed struct {
	Commit  string
	Message string
	// Changed are the targets (<cluster type>/<node>) whose rendered
	// files the commit changes against its parent, of Total, the targets
	// render renders (fleet.TargetCount).
	Changed []string
	Total   int
}

// Run applies plan's step, renders what it can change and commits it. A
// nil plan (a patch's first copy, written by hand) and an Applied one have
// nothing to apply.
func (s *Step) Run(ctx context.Context, plan *promote.Plan, c Commit) (*output.Result, *Committed, error) {
	if plan != nil && !s.Applied {
		if err := s.Apply(plan); err != nil {
			return nil, nil, err
		}
	}
	res, err := s.Render(plan)
	if err != nil {
		return nil, nil, err
	}
	done, err := s.Commit(ctx, plan, c)
	return res, done, err
}

// Apply promotes plan under its journal (promote.Apply).
func (s *Step) Apply(plan *promote.Plan) error { return promote.Apply(s.Ops, plan) }

// Render re-renders the targets plan can change (plan.RenderedDirs; every
// target when plan is nil, or when that cannot be told), then finishes the
// promotion's journal: the promotion is done only once rendered/ follows.
func (s *Step) Render(plan *promote.Plan) (*output.Result, error) {
	var only []string
	if plan != nil {
		cfg, err := fleet.ReadConfig(s.FS, s.Config)
		if err != nil {
			return nil, fmt.Errorf("config/ is promoted but rendering failed; fix it, then %s: %w", s.Retry, err)
		}
		only = plan.RenderedDirs(cfg)
	}
	statePath := ""
	if !s.Stateless {
		statePath, _ = output.StatePath(s.Dir)
	}
	res, err := output.Run(output.Options{Root: s.Dir, FS: s.FS, StatePath: statePath, Only: only, Config: s.Config, Rendered: s.Rendered})
	if err != nil {
		return nil, fmt.Errorf("config/ is promoted but rendering failed; fix it, then %s: %w", s.Retry, err)
	}
	if err := promote.Finish(s.Ops); err != nil {
		return nil, err
	}
	return res, nil
}

// Commit commits the step of plan (nil: the patch's first copy, c says
// what it is) with promote.CommitMessage. Its counts are the commit's:
// the targets whose files under rendered/ it stages, whoever rendered
// them.
func (s *Step) Commit(ctx context.Context, plan *promote.Plan, c Commit) (*Committed, error) {
	ct, comp, subject, msgPlan := c.ClusterType, c.Component, c.Subject, plan
	if plan != nil {
		ct, comp = plan.ClusterType, plan.Component
		if subject == "" {
			subject = promote.Subject(plan)
		}
	} else if c.Meta != nil {
		msgPlan = &promote.Plan{ClusterType: ct, Component: comp, Meta: c.Meta}
	}
	f, err := LoadComponent(s.FS, ct, comp)
	if err != nil {
		return nil, err
	}
	staged, err := c.Git.Stage(ctx, c.paths(s.Dir, plan, f.Config)...)
	if err != nil {
		return nil, err
	}
	changes := make([]output.Change, len(staged))
	for i, p := range staged {
		changes[i].Path = p
	}
	done := &Committed{Total: f.TargetCount()}
	done.Changed = (&output.Plan{Changes: changes}).Targets(f.Config)
	done.Message = promote.CommitMessage(subject, msgPlan, promote.Rendered{Changed: done.Changed, Total: done.Total}, c.Trailers...)
	if done.Commit, err = c.Git.CommitStaged(ctx, done.Message, staged); err != nil {
		return nil, err
	}
	return done, nil
}

// paths are what the commit of plan stages: Paths, rendered/ cut to the
// plan's directories when Planned and the plan can tell them. A planned
// directory missing from the work tree (a target removed, or rendering
// nothing) falls back to all of rendered/, which git can take whole.
func (c Commit) paths(dir string, plan *promote.Plan, cfg *fleet.Config) []string {
	all := make([]string, len(c.Paths))
	for i, p := range c.Paths {
		if p == render.OutputDir {
			p = cfg.OutputRoot()
		}
		all[i] = p
	}
	if !c.Planned || plan == nil {
		return all
	}
	dirs := plan.RenderedDirs(cfg)
	if dirs == nil {
		return all
	}
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(d))); err != nil {
			return all
		}
	}
	var out []string
	for _, p := range c.Paths {
		if p == render.OutputDir {
			out = append(out, dirs...)
		} else {
			out = append(out, p)
		}
	}
	return out
}
