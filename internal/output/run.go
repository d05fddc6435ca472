package output

import (
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/parallel"
	"github.com/strata-fleet/strata/internal/render"
	"github.com/strata-fleet/strata/internal/rootfs"
	"github.com/strata-fleet/strata/internal/treestamp"
)

// Options configures Run.
type Options struct {
	// Root is the repository directory; FS reads it (nil: Root through
	// package rootfs, which refuses links out of it and git's data).
	// Every write goes through an os.Root opened on Root.
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
	// Only, when not nil, restricts the run to the targets whose directory is
	// one of these directories of rendered/ ("rendered/<type>/<node>") or
	// under one: for a command that changed only inputs of those targets
	// (a promotion). A restricted run reads only the part of config/ those
	// targets need (fleet.LoadScope: a problem elsewhere goes unreported),
	// renders, compares and switches only those targets, deletes nothing
	// outside their directories (a full run removes what no target renders
	// any more), and records the state of those it rendered only, leaving
	// the other targets' entries as they are. When rendered/ does not exist yet the run renders every target:
	// it never creates a partial rendered/.
	Only []string
	// Config, when set, is config.yaml as the caller loaded it (and has
	// not modified): a run restricted by Only uses it rather than parse
	// config.yaml again, while the file holds the same bytes.
	Config *fleet.Config
	// Progress, when set, is called as targets render.
	Progress func(done, total int)
	// Rendered, when set, is called once every target has rendered and
	// been staged, before rendered/ changes (tests pause a run there).
	Rendered func()
	// Switching, when set, is called before each step of the switch with
	// the path of rendered/ it moves (tests stop a run there).
	Switching func(path string)

	ops fileOps // nil: the disk; failure_test.go injects faults
}

// Result is what a run did (or, with Check, would do).
type Result struct {
	Plan *Plan
	// Targets is the number of targets of the fleet; Considered how many
	// the run compared (all of them, unless Options.Only restricted it);
	// Rendered how many of those were rendered (the others were known to
	// be current).
	Targets, Considered, Rendered int
	// Warnings are problems that do not stop the render, such as two
	// patches of one level setting the same field, one line each.
	Warnings []string
	// Resumed says that the run first completed the switch of an
	// interrupted render; Completed lists the paths of rendered/ (target
	// directories, stale files, or rendered/ itself for a first render)
	// that completing it switched into place or removed.
	Resumed   bool
	Completed []string
	// Root is the output root the run rendered into: the fleet's layout's
	// (fleet.Config.OutputRoot), rendered by default.
	Root string
}

// Run renders the fleet at opts.Root into rendered/: load, fingerprint,
// render what changed, stage, and (unless Check) switch.
func Run(opts Options) (*Result, error) {
	if opts.ops == nil {
		opts.ops = diskOps{exact: modesExact(opts.Root)}
	}
	root, err := os.OpenRoot(opts.Root)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	if opts.FS == nil {
		opts.FS = rootfs.New(root)
	}
	res := &Result{}
	journal, err := JournalPath(opts.Root)
	if err != nil {
		return nil, err
	}
	if !opts.Check {
		if res.Resumed, res.Completed, err = recoverStage(root, opts.ops, journal); err != nil {
			return nil, err
		}
	}
	// config.yaml first: its layout names the output root.
	cfg, err := fleet.ReadConfig(opts.FS, opts.Config)
	if err != nil {
		return nil, err
	}
	outRoot := cfg.Layout.Root()
	t := newTree(root)
	defer t.close()
	exists, err := t.dir(outRoot)
	if err != nil {
		return nil, err
	}
	restricted := opts.Only != nil && exists
	state := &State{Version: stateVersion, Targets: map[string]TargetState{}}
	if opts.StatePath != "" && !opts.Fresh {
		state = LoadState(opts.StatePath)
	}
	// Which targets still have the files the state recorded: for a whole
	// run, every target of the state, while the fleet loads; for a run
	// restricted to some, only those whose fingerprint the state has.
	onDisk := func(dir string) bool { return state.onDisk(t, dir) }
	if !restricted {
		found := checkOnDisk(t, state, slices.Collect(maps.Keys(state.Targets)))
		defer found() // before t closes
		onDisk = func(dir string) bool { return found()[dir] }
	}
	r, err := loadRenderer(opts.FS, opts.Only, restricted, cfg)
	if err != nil {
		return nil, err
	}
	targets := r.Targets()
	var all map[string]bool // every target's directory; nil when restricted
	if restricted {
		targets = only(targets, opts.Only)
	} else {
		all = targetDirs(targets)
	}
	dirty, fps, kept := changedTargets(r, state, targets, onDisk)
	// Conflicts decode the same patch files the render does: a broken one
	// is reported by the render, which names the target.
	conflicts, cerr := r.Fleet.Conflicts()
	want := all // what rendered/ keeps; nil: look for no stale files
	if !exists {
		want = nil
	}
	plan, staged, err := renderAndWrite(opts, r, t, dirty, want, !exists, journal, outRoot)
	if err != nil {
		return nil, err
	}
	if cerr != nil {
		return nil, cerr
	}
	plan.Unchanged += kept
	res.Plan, res.Targets, res.Considered, res.Rendered, res.Root = plan, r.Fleet.TargetCount(), len(targets), len(dirty), outRoot
	for _, c := range conflicts {
		res.Warnings = append(res.Warnings, c.String())
	}
	if !opts.Check && opts.StatePath != "" {
		after := newTree(root)
		saveState(opts, after, state, dirty, fps, staged, all)
		after.close()
	}
	return res, nil
}

// loadRenderer loads the fleet and its chart: all of it, or when the run
// is restricted only what the targets under the directories only need
// (fleet.LoadScope). parsed is config.yaml, parsed.
func loadRenderer(fsys fs.FS, only []string, restricted bool, parsed *fleet.Config) (*render.Renderer, error) {
	if !restricted {
		return render.LoadReusing(fsys, parsed)
	}
	outRoot := parsed.Layout.Root()
	s := fleet.Scope{}
	for _, d := range only {
		if d == outRoot {
			return render.LoadReusing(fsys, parsed)
		}
		if parsed.Layout.Default() {
			if rest, ok := strings.CutPrefix(d, outRoot+"/"); ok {
				ct, node, _ := strings.Cut(rest, "/")
				s[ct] = append(s[ct], node)
			}
			continue
		}
		if t, ok := parsed.TargetAt(d); ok {
			s[t.ClusterType] = append(s[t.ClusterType], t.Node.ID())
		}
	}
	return render.LoadScopeReusing(fsys, s, parsed)
}

// only returns the targets whose directory is one of dirs or under one.
func only(targets []render.Target, dirs []string) []render.Target {
	var out []render.Target
	for _, tg := range targets {
		d := tg.Dir()
		for _, o := range dirs {
			if d == o || (strings.HasPrefix(d, o) && d[len(o)] == '/') {
				out = append(out, tg)
				break
			}
		}
	}
	return out
}

// targetDirs returns the set of the targets' directories, and of their
// files beside them (their values files).
func targetDirs(targets []render.Target) map[string]bool {
	out := make(map[string]bool, len(targets))
	for _, tg := range targets {
		out[tg.Dir()] = true
		if f := tg.ValuesFile(); f != "" {
			out[f] = true
		}
	}
	return out
}

// renderAndWrite renders the dirty targets, compares each with its
// directory, stages those that changed and, unless want is nil, finds the
// stale files (what rendered/ holds outside the directories in want);
// then, unless checking, switches the staged trees into place (switch.go).
// Nothing in rendered/ changes unless every target rendered and was staged.
// It also returns what staging learnt of the stamps of a target it
// switched (writer.staged).
func renderAndWrite(opts Options, r *render.Renderer, t *tree, dirty []render.Target, want map[string]bool, first bool, journal, outRoot string) (*Plan, func(dir string) (stagedStamps, bool), error) {
	var s *stage
	if !opts.Check {
		var err error
		if s, err = openStage(t.root, opts.ops, journal, outRoot); err != nil {
			return nil, nil, err
		}
		s.switching = opts.Switching
	}
	w := newWriter(t, s, outRoot, first)
	var err error
	if want != nil {
		err = w.stale(want)
	}
	if err == nil {
		err = r.RenderStream(dirty, opts.Progress, w.sink)
	}
	plan, ferr := w.finish()
	if err == nil {
		err = ferr
	}
	if err == nil && opts.Rendered != nil {
		opts.Rendered()
	}
	if err == nil && s != nil {
		err = s.commit(t)
		if err != nil {
			return nil, nil, err
		}
	}
	if err != nil {
		if s != nil {
			s.discard()
		}
		return nil, nil, err
	}
	return plan, w.staged, nil
}

// saveState records the dirty targets' files as they are now (for those
// it switched, from what staging learnt: staged), forgets the targets not
// in keep (unless nil: a restricted run knows only some), and saves the
// state; a state that cannot be saved only makes the next run slower.
func saveState(opts Options, t *tree, state *State, dirty []render.Target, fps map[string][32]byte, staged func(dir string) (stagedStamps, bool), keep map[string]bool) {
	forgot := len(state.Targets)
	if keep != nil {
		state.Forget(keep)
	}
	if len(dirty) == 0 && forgot == len(state.Targets) {
		return // nothing changed
	}
	// Stamping stats the targets' directories and linked files, or lists
	// the targets not staged (found unchanged): in parallel.
	now := make([]TargetState, len(dirty))
	errs := make([]error, len(dirty))
	parallel.Each(runtime.GOMAXPROCS(0), len(dirty), func(i int) {
		dir := dirty[i].Dir()
		if s, ok := staged(dir); ok {
			now[i], errs[i] = s.stamped(t, dir, fps[dir])
		} else {
			now[i], errs[i] = stamped(t, dir, fps[dir])
		}
		if f := dirty[i].ValuesFile(); f != "" && errs[i] == nil {
			var st Stamp
			st, errs[i] = stampBeside(t, f)
			now[i].Beside = []Stamp{st}
		}
	})
	clock, err := readClock(t.root, opts.ops)
	if err != nil {
		slog.Warn("could not read the file system's clock; the next run renders again the targets this one rendered", "err", err)
		clock = treestamp.NoClock
	}
	for i, tg := range dirty {
		if errs[i] != nil || now[i].racy(clock) {
			delete(state.Targets, tg.Dir())
		} else {
			state.Targets[tg.Dir()] = now[i]
		}
	}
	if err := opts.ops.SaveState(opts.StatePath, state.encode()); err != nil {
		slog.Warn("could not save the render state; the next run renders everything", "path", opts.StatePath, "err", err)
	}
}

// changedTargets returns the targets that need rendering, every target's
// fingerprint by directory, and how many files the others (known to be
// current) hold.
func changedTargets(r *render.Renderer, state *State, targets []render.Target, onDisk func(dir string) bool) (dirty []render.Target, fps map[string][32]byte, kept int) {
	fps = make(map[string][32]byte, len(targets))
	current := currentTargets(r, state, targets, onDisk)
	for i, tg := range targets {
		fps[tg.Dir()] = current[i].fp
		if current[i].ok {
			kept += len(state.Targets[tg.Dir()].Files) + len(state.Targets[tg.Dir()].Beside)
		} else {
			dirty = append(dirty, tg)
		}
	}
	return dirty, fps, kept
}

type currentness struct {
	fp [32]byte
	ok bool
}

// currentTargets fingerprints every target, in parallel, and tells
// whether it is current: the state recorded its files for that
// fingerprint, and they are on disk as recorded (onDisk: asked only then).
func currentTargets(r *render.Renderer, state *State, targets []render.Target, onDisk func(dir string) bool) []currentness {
	out := make([]currentness, len(targets))
	parallel.Each(2*runtime.GOMAXPROCS(0), len(targets), func(i int) {
		dir, fp := targets[i].Dir(), r.Fingerprint(targets[i])
		ts, ok := state.Targets[dir]
		out[i] = currentness{fp: fp, ok: ok && ts.Fingerprint == fp && onDisk(dir)}
	})
	return out
}

// checkOnDisk starts checking, in the background and in parallel (it is
// mostly stat calls, which need no fleet: a whole run makes them while the
// fleet loads), which of the target directories dirs still hold the files
// the state recorded (State.onDisk). The function it returns waits for the
// answer: the directories that do.
func checkOnDisk(t *tree, state *State, dirs []string) func() map[string]bool {
	found := make([]bool, len(dirs))
	done := make(chan struct{})
	go func() {
		defer close(done)
		parallel.Each(2*runtime.GOMAXPROCS(0), len(dirs), func(i int) { found[i] = state.onDisk(t, dirs[i]) })
	}()
	return sync.OnceValue(func() map[string]bool {
		<-done
		current := make(map[string]bool, len(dirs))
		for i, dir := range dirs {
			if found[i] {
				current[dir] = true
			}
		}
		return current
	})
}
