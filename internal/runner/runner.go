package runner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"k8s.io/utils/clock"

	"github.com/strata-fleet/strata/internal/action"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/rollout"
	"github.com/strata-fleet/strata/internal/rollout/inflight"
	"github.com/strata-fleet/strata/internal/rollout/writer"
)

// DefaultInterval is how often a runner looks for new patches.
const DefaultInterval = time.Minute

// Options configure a runner.
type Options struct {
	// Env and Rollout are every rollout's (Rollout's patch is set per
	// patch); Env.Events receives all their events, one at a time.
	Env     rollout.Env
	Rollout rollout.Options
	// Interval is how often the remote is fetched for new patches
	// (default DefaultInterval).
	Interval time.Duration
	// Wake, when set, makes the runner fetch at once rather than at the
	// next Interval (a push webhook, package webhook): one receive, one
	// fetch.
	Wake <-chan struct{}
	// Metrics, when set, observe every event and the runner's health.
	Metrics *Metrics
	// Ended, when set, is told each rollout's end.
	Ended func(rollout.PatchResult)
	Log   *slog.Logger
}

// runner is one Run.
type runner struct {
	o      Options
	events sync.Mutex
	mu     sync.Mutex
	// running are the patches whose rollout runs; ended the patches whose
	// rollout ended, with the key (last commit of their files) then.
	running map[string]bool
	ended   map[string]string
	wg      sync.WaitGroup
}

// Run keeps delivering until ctx ends, then waits for its rollouts to stop
// (they stop at once: a step interrupted mid-write is completed by the
// next run from its journal). It returns ctx's cause.
func Run(ctx context.Context, o Options) error {
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Env.Clock == nil {
		o.Env.Clock = clock.RealClock{}
	}
	r := &runner{o: o, running: map[string]bool{}, ended: map[string]string{}}
	events := o.Env.Events
	r.o.Env.Events = func(e rollout.Event) {
		r.events.Lock()
		defer r.events.Unlock()
		if o.Metrics != nil {
			o.Metrics.Observe(e)
		}
		if events != nil {
			events(e)
		}
	}
	tick := o.Env.Clock.NewTicker(o.Interval)
	defer tick.Stop()
	for {
		err := r.tick(ctx)
		if err != nil && ctx.Err() == nil {
			o.Log.Warn("looking for patches in flight", "error", err)
		}
		if o.Metrics != nil {
			o.Metrics.setHealth(err)
		}
		select {
		case <-ctx.Done():
			r.wg.Wait()
			return context.Cause(ctx)
		case <-tick.C():
		case <-o.Wake:
		}
	}
}

// tick brings the work tree up to its upstream and starts the rollouts of
// the patches in flight that none runs.
func (r *runner) tick(ctx context.Context) error {
	if err := r.sync(ctx); err != nil {
		return err
	}
	patches, err := r.inFlight(ctx)
	if err != nil {
		return err
	}
	if m := r.o.Metrics; m != nil {
		// The patches status lists in flight (inflight.Patches and
		// Settling), whether their rollout runs or waits for a change.
		m.inFlight.Set(float64(len(patches)))
	}
	for _, id := range patches {
		key, err := r.key(ctx, id)
		if err != nil {
			return err
		}
		r.mu.Lock()
		skip := r.running[id] || (r.ended[id] != "" && r.ended[id] == key)
		if !skip {
			r.running[id] = true
		}
		r.mu.Unlock()
		if skip {
			continue
		}
		r.wg.Go(func() { r.roll(ctx, id, key) })
	}
	return nil
}

// roll runs one patch's rollout to its end.
func (r *runner) roll(ctx context.Context, id, key string) {
	res := rollout.RunPatch(ctx, r.o.Env, r.o.Rollout, id)
	if res.Err != nil && ctx.Err() == nil {
		r.o.Log.Warn("rollout ended", "patch", id, "error", res.Err)
	}
	var se *rollout.StepError
	if m := r.o.Metrics; m != nil && res.Err != nil && !errors.As(res.Err, &se) && ctx.Err() == nil {
		m.failures.WithLabelValues("error").Inc()
	}
	var ue *rollout.UnreadableError
	if m := r.o.Metrics; m != nil && errors.As(res.Err, &ue) && ctx.Err() == nil {
		m.setUnreadable(id, ue)
	}
	// Its key is read again: the rollout's own steps changed the files.
	if k, err := r.key(context.WithoutCancel(ctx), id); err == nil {
		key = k
	}
	r.mu.Lock()
	delete(r.running, id)
	// A failed step or a gate waits for the patch to change; another
	// error (the remote, a cluster, the lock) is tried again next tick.
	if ctx.Err() == nil && (res.Err == nil || errors.As(res.Err, &se)) {
		r.ended[id] = key
	}
	r.mu.Unlock()
	if r.o.Ended != nil && ctx.Err() == nil {
		r.o.Ended(res)
	}
}

// sync fetches the remote and fast-forwards the work tree to it, under the
// repository lock.
func (r *runner) sync(ctx context.Context) error {
	lock := r.o.Env.Lock
	if lock != nil {
		release, err := lock(ctx)
		if err != nil {
			return err
		}
		defer release()
	}
	g := r.o.Env.Git
	upstream := "@{upstream}"
	if remote := r.o.Rollout.Remote; remote != "" {
		branch, err := g.Run(ctx, "rev-parse", "--abbrev-ref", "HEAD")
		if err != nil {
			return err
		}
		upstream = remote + "/" + strings.TrimSpace(branch)
		if err := writer.Fetch(ctx, r.o.Env.Dir, r.o.Env.Git, remote); err != nil {
			return fmt.Errorf("fetching %s: %w", remote, err)
		}
	} else if err := writer.Fetch(ctx, r.o.Env.Dir, r.o.Env.Git); err != nil {
		return fmt.Errorf("fetching: %w", err)
	}
	if _, err := g.Run(ctx, "merge", "-q", "--ff-only", upstream); err != nil {
		return fmt.Errorf("bringing the work tree up to %s: %w%s", upstream, err, r.wayOut(ctx, upstream))
	}
	return nil
}

// wayOut is the hint for a work tree that cannot be fast-forwarded to
// upstream: where its HEAD is not in upstream's history, main was
// rewritten (a force push) or the work tree has commits of its own, and
// the runner, which never rewrites history itself, goes on only once a
// person has brought the work tree to upstream's history.
func (r *runner) wayOut(ctx context.Context, upstream string) string {
	g := r.o.Env.Git
	if _, err := g.Run(ctx, "merge-base", "--is-ancestor", "HEAD", upstream); err == nil {
		return "" // HEAD is in upstream's history: not a rewrite (a dirty work tree, a lock)
	}
	if name, err := g.Run(ctx, "rev-parse", "--abbrev-ref", "--symbolic-full-name", upstream); err == nil && strings.TrimSpace(name) != "" {
		upstream = strings.TrimSpace(name) // origin/main, not @{upstream}
	}
	head, _ := g.Run(ctx, "rev-parse", "--short=12", "HEAD")
	return fmt.Sprintf("\n  %s was rewritten (a force push?) or this work tree has commits it does not: its HEAD %s is not in %s's history,"+
		" and the runner never rewrites history itself.\n  The way out: check that %s is the history to deliver, keep what this work tree"+
		" has of its own (git -C %s branch saved-%s HEAD), then git -C %s reset --hard %s; the runner goes on at its next interval.",
		upstream, strings.TrimSpace(head), upstream, upstream, r.o.Env.Dir, strings.TrimSpace(head), r.o.Env.Dir, upstream)
}

// inFlight lists the patches in flight in the work tree, and those
// whose last step is settling (inflight.Settling).
func (r *runner) inFlight(ctx context.Context) ([]string, error) {
	var out []string
	err := r.locked(ctx, func() error {
		ar, err := action.Open(r.o.Env.Dir)
		if err != nil {
			return err
		}
		defer ar.Close()
		f, err := fleet.Load(ar.FS)
		if err != nil {
			return err
		}
		if err := r.o.Rollout.Runner.Check(f.Config); err != nil {
			return err
		}
		// A fold or a first step's revert removed the patch's files; its
		// rollout still has that step to settle.
		settling, err := inflight.Settling(ctx, r.o.Env.Git, f, r.o.Env.Clock.Now(), r.o.Rollout.Soak, r.o.Rollout.Timeout)
		if err != nil {
			return err
		}
		out = append(inflight.Patches(f), settling...)
		return nil
	})
	return out, err
}

// key is the last commit that changed the files of patch id: a rollout
// that ended starts again once it changes.
func (r *runner) key(ctx context.Context, id string) (string, error) {
	parts := strings.SplitN(id, "/", 3)
	out, err := r.o.Env.Git.Run(ctx, "log", "-1", "--format=%H", "--", inflight.PatchFiles(parts[0], parts[1], parts[2]))
	return strings.TrimSpace(out), err
}

func (r *runner) locked(ctx context.Context, f func() error) error {
	if r.o.Env.Lock == nil {
		return f()
	}
	release, err := r.o.Env.Lock(ctx)
	if err != nil {
		return err
	}
	defer release()
	return f()
}
