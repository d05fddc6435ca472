package output

import (
	"fmt"
	"io/fs"
	"log/slog"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/strata-fleet/strata/internal/render"
)

// Options configures Run.
type Options struct {
	// Root is the repository directory; FS reads it (nil: os.DirFS(Root)).
	Root string
	FS   fs.FS
	// Check plans only: nothing is written.
	Check bool
	// StatePath is where the render state lives ("" disables it, so that
	// every target renders).
	StatePath string
	// Fresh renders every target, ignoring the state (which is still
	// recorded afterwards).
	Fresh bool
	// Progress, when set, is called as targets render.
	Progress func(done, total int)
}

// Result is what a run did (or, with Check, would do).
type Result struct {
	Plan *Plan
	// Targets is the number of targets; Rendered how many were rendered
	// (the others were known to be current).
	Targets, Rendered int
	// Warnings are problems that do not stop the render, such as two
	// patches of one level setting the same field, one line each.
	Warnings []string
}

// Run renders the fleet at opts.Root into rendered/: load, fingerprint,
// render what changed, plan, and (unless Check) apply.
func Run(opts Options) (*Result, error) {
	r, err := render.Load(opts.FS)
	if err != nil {
		return nil, err
	}
	f := r.Fleet
	state := &State{Version: stateVersion, Targets: map[string]TargetState{}}
	if opts.StatePath != "" && !opts.Fresh {
		state = LoadState(opts.StatePath)
	}

	targets := r.Targets()
	fps := make(map[string][32]byte, len(targets))
	keep := map[string]bool{}
	var dirty []render.Target
	current := currentTargets(opts.Root, r, state, targets)
	for i, t := range targets {
		fps[t.Dir()] = current[i].fp
		if current[i].ok {
			keep[t.Dir()] = true
		} else {
			dirty = append(dirty, t)
		}
	}
	// Conflicts decode the same patch files the render does: a broken one
	// is reported by the render, which names the target.
	conflicts, cerr := f.Conflicts()
	plan, err := renderAndWrite(opts, r, dirty, keep)
	if err != nil {
		return nil, err
	}
	if cerr != nil {
		return nil, cerr
	}
	// The files of targets known to be current are unchanged too.
	for dir := range keep {
		plan.Unchanged += len(state.Targets[dir].Files)
	}
	res := &Result{Plan: plan, Targets: len(targets), Rendered: len(dirty)}
	for _, c := range conflicts {
		res.Warnings = append(res.Warnings, c.String())
	}
	if opts.Check {
		return res, nil
	}
	if opts.StatePath != "" {
		all := map[string]bool{}
		for dir := range fps {
			all[dir] = true
		}
		forgot := state.Forget(all)
		for _, t := range dirty {
			if err := state.Record(opts.Root, t.Dir(), fps[t.Dir()]); err != nil {
				return res, fmt.Errorf("recording render state: %w", err)
			}
		}
		if forgot == 0 && len(dirty) == 0 {
			return res, nil // the state on disk is this one
		}
		if err := state.Save(opts.StatePath); err != nil {
			slog.Warn("could not save the render state; the next run renders everything", "path", opts.StatePath, "err", err)
		}
	}
	return res, nil
}

// renderAndWrite renders the dirty targets and brings rendered/ up to date,
// leaving the kept targets' directories alone; with Check it only plans.
// A first render (no rendered/ yet) streams into a staging directory moved
// into place once every target rendered; otherwise the plan is computed
// against the files on disk and applied.
func renderAndWrite(opts Options, r *render.Renderer, dirty []render.Target, keep map[string]bool) (*Plan, error) {
	if !opts.Check && !exists(filepath.Join(opts.Root, render.OutputDir)) {
		staged, err := newStaging(opts.Root)
		if err != nil {
			return nil, err
		}
		defer staged.discard()
		if err := r.RenderStream(dirty, opts.Progress, staged.write); err != nil {
			return nil, err
		}
		return staged.commit()
	}
	outs, err := r.RenderAll(dirty, opts.Progress)
	if err != nil {
		return nil, err
	}
	desired := Desired{Files: map[string][]byte{}, Keep: keep}
	for _, o := range outs {
		for _, file := range o.Files {
			desired.Files[file.Path] = file.Data
		}
	}
	plan, err := PlanTree(opts.Root, render.OutputDir, desired)
	if err != nil || opts.Check {
		return plan, err
	}
	return plan, Apply(opts.Root, plan)
}

type currentness struct {
	fp [32]byte
	ok bool
}

// currentTargets fingerprints every target and checks, in parallel (it is
// mostly stat calls), whether its files on disk are those the state
// recorded for that fingerprint.
func currentTargets(root string, r *render.Renderer, state *State, targets []render.Target) []currentness {
	out := make([]currentness, len(targets))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 2 * runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(targets); i = int(next.Add(1) - 1) {
				fp := r.Fingerprint(targets[i])
				out[i] = currentness{fp: fp, ok: state.Current(root, targets[i].Dir(), fp)}
			}
		}()
	}
	wg.Wait()
	return out
}
