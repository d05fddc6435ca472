package web

import (
	"context"
	"io/fs"
	"log/slog"
	"sync"
	"time"

	"github.com/strata-fleet/strata/internal/diff"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/render"
	"github.com/strata-fleet/strata/internal/rollout/inflight"
	"github.com/strata-fleet/strata/internal/status"
	"github.com/strata-fleet/strata/internal/treestamp"
)

// Options configures a Server.
type Options struct {
	// Dir is the fleet repository's directory (for Git); FS reads it.
	Dir string
	FS  fs.FS
	// Root is the repository as the user named it (serve --root), which
	// the commands a page names for the user to run are given, so that
	// they work where strata ran; "" when it was found from there.
	Root string
	// Base is the revision the diff page compares with by default (HEAD).
	Base string
	// Interval is how often the repository is polled for changes (1s).
	Interval time.Duration
	// AllowedHosts are the host names or addresses, besides loopback
	// ones, that a request's Host may name (without the port; any case).
	// Every other request is refused.
	AllowedHosts []string
	Logger       *slog.Logger
	// Live, when set, reads the live state that the matrix shows, every
	// LiveInterval (10s) while Watch runs.
	Live         LiveFunc
	LiveInterval time.Duration
	// Unrendered, when set, is the render's check (action.Step.UnrenderedIn):
	// the targets under the directories dirs of rendered/ (nil: every
	// target) whose output does not follow config/ as cfg has it. The
	// rollouts in flight then show a patch committed without strata render
	// as waiting for it, as status does (a "render" wait); its answers are
	// kept while nothing they depend on changes (unrendered.go).
	Unrendered func(cfg *fleet.Config, dirs []string) ([]string, error)
}

// Server serves the UI over the current state of a fleet repository.
type Server struct {
	opts Options

	mu   sync.RWMutex
	snap *snapshot

	diffMu sync.Mutex
	// refreshMu guards src, what the last look at the repository saw.
	refreshMu sync.Mutex
	src       sources

	live liveState
	// conditions caches the stopWhen conditions' reads (Options.Live).
	conditions *conditions
	// unrendered keeps the render check's answers (Options.Unrendered).
	unrendered unrendered
}

// snapshot is the data of one load of the repository.
type snapshot struct {
	gen    int
	loaded time.Time
	err    error
	fleet  *fleet.Fleet
	chart  *render.Chart
	status *status.Status
	diffs  map[string]*diffEntry
}

type diffEntry struct {
	res *diff.Result
	err error
}

// New loads the repository and returns a Server. A repository that does not
// load is not an error here: the UI shows the error until it is fixed.
func New(opts Options) *Server {
	if opts.Base == "" {
		opts.Base = "HEAD"
	}
	if opts.Interval <= 0 {
		opts.Interval = time.Second
	}
	if opts.LiveInterval <= 0 {
		opts.LiveInterval = 10 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	pages()
	s := &Server{opts: opts, conditions: newConditions(inflight.ReadCondition)}
	s.src = scanSources(opts.FS, treestamp.Now)
	s.load(0)
	return s
}

// Err returns the error of the last load, if it failed.
func (s *Server) Err() error { return s.current().err }

// Generation counts the loads and the changes of the live state; it
// changes when the repository or what Argo CD says does.
func (s *Server) Generation() int { return s.current().gen + s.liveGeneration() }

func (s *Server) current() *snapshot {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.snap
}

func (s *Server) load(gen int) {
	snap := &snapshot{gen: gen, loaded: time.Now(), diffs: map[string]*diffEntry{}}
	var r *render.Renderer
	if r, snap.err = render.Load(s.opts.FS); snap.err == nil {
		snap.fleet, snap.chart = r.Fleet, r.Chart
		snap.status, snap.err = status.Compute(snap.fleet)
	}
	if snap.err != nil {
		s.opts.Logger.Warn("the fleet does not load; the UI shows the error until it is fixed", "err", snap.err)
	}
	s.mu.Lock()
	s.snap = snap
	s.mu.Unlock()
}

// Watch polls the repository until ctx ends and reloads it when a file
// under config/ or argocd-apps/ changes; with Options.Live, it reads the
// live state too.
func (s *Server) Watch(ctx context.Context) {
	if s.opts.Live != nil {
		go func() {
			s.refreshLive(ctx)
			every(ctx, s.opts.LiveInterval, func() { s.refreshLive(ctx) })
		}()
	}
	every(ctx, s.opts.Interval, func() { s.Refresh() })
}

// every calls fn every d until ctx ends.
func every(ctx context.Context, d time.Duration, fn func()) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			fn()
		}
	}
}

// Refresh reloads the repository if it changed since the last load, and
// reports whether it did. While nothing changed it lists no directory: it
// checks the stamps of the directories and files it saw (sources.current).
func (s *Server) Refresh() bool {
	s.refreshMu.Lock()
	defer s.refreshMu.Unlock()
	if s.src.current(s.opts.FS) {
		return false
	}
	src := scanSources(s.opts.FS, treestamp.Now)
	switch {
	case !src.same(s.src):
		s.opts.Logger.Info("the repository changed; reloading")
	case s.src.racy:
		s.opts.Logger.Info("a file changed in the clock tick of the last look, which cannot tell whether it changed again; reloading")
	default:
		s.src = src
		return false
	}
	s.load(s.current().gen + 1)
	s.src = src
	return true
}

// diff compares the current fleet with base, once per base and generation.
func (s *Server) diff(snap *snapshot, base, target string) (*diff.Result, error) {
	s.diffMu.Lock()
	defer s.diffMu.Unlock()
	commit, err := diff.Commit(s.opts.Dir, base)
	if err != nil {
		return nil, err
	}
	key := commit + "\x00" + target
	if e := snap.diffs[key]; e != nil {
		return e.res, e.err
	}
	e := &diffEntry{}
	rev, err := diff.ReadRevision(s.opts.Dir, base)
	if err != nil {
		e.err = err
	} else {
		e.res, e.err = diff.Compare(diff.Options{Base: rev, Head: s.opts.FS, Target: target})
	}
	snap.diffs[key] = e
	return e.res, e.err
}
