package rollout

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/strata-fleet/strata/internal/action"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/rollout/inflight"
)

// PatchResult is how RunAll's rollout of one patch ended.
type PatchResult struct {
	// Patch is <type>/<component>/<patch>.
	Patch  string  `json:"patch"`
	Result *Result `json:"result"`
	// Err is why it stopped, when it failed.
	Err error `json:"-"`
}

// RunAll rolls out every patch in flight at once (strata rollout --all)
// and settles those whose last step removed their files: one run per
// patch, side by side, opts for all, their steps made by one writer and
// their events, carrying their patch, one at a time. A patch whose
// rollout fails stops alone.
func RunAll(ctx context.Context, env Env, opts Options) ([]PatchResult, error) {
	r, err := action.Open(env.Dir)
	if err != nil {
		return nil, err
	}
	f, err := fleet.Load(r.FS)
	r.Close()
	if err != nil {
		return nil, err
	}
	now := time.Now()
	if env.Clock != nil {
		now = env.Clock.Now()
	}
	var settling []string
	if !opts.DryRun { // a settling last step has no step left to show
		if settling, err = inflight.Settling(ctx, env.Git, f, now, opts.Soak, opts.Timeout); err != nil {
			return nil, err
		}
	}
	patches := append(inflight.Patches(f), settling...)
	out := make([]PatchResult, len(patches))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sh := newShared(ctx, env, true) // one cache of live state, one writer
	sh.loads = make(chan struct{}, runtime.GOMAXPROCS(0))
	var mu sync.Mutex
	events := env.Events
	var wg sync.WaitGroup
	for i, id := range patches {
		e := env
		e.Events = func(ev Event) {
			mu.Lock()
			defer mu.Unlock()
			if events != nil {
				events(ev)
			}
		}
		wg.Go(func() { out[i] = runPatch(ctx, e, opts, id, sh) })
	}
	wg.Wait()
	return out, nil
}

// RunPatch is one patch's rollout of RunAll, and of a runner that keeps
// delivering (package runner): patch is <type>/<component>/<patch>, taken
// under its lock (Env.Hold), its events carrying it.
func RunPatch(ctx context.Context, env Env, opts Options, patch string) PatchResult {
	return runPatch(ctx, env, opts, patch, nil)
}

// runPatch is RunPatch, sharing sh with RunAll's other rollouts (nil:
// none).
func runPatch(ctx context.Context, env Env, opts Options, patch string, sh *shared) PatchResult {
	out := PatchResult{Patch: patch}
	events := env.Events
	env.Events = func(ev Event) {
		ev.Patch = patch
		if events != nil {
			events(ev)
		}
	}
	parts := strings.SplitN(patch, "/", 3)
	if len(parts) != 3 {
		out.Err = fmt.Errorf("patch %q: want <cluster type>/<component>/<patch>", patch)
		return out
	}
	opts.ClusterType, opts.Component, opts.Patch = parts[0], parts[1], parts[2]
	if env.Hold != nil && !opts.DryRun {
		release, err := env.Hold(ctx, patch)
		if err != nil {
			out.Err = err
			return out
		}
		defer release()
	}
	out.Result, out.Err = run(ctx, env, opts, sh)
	return out
}
