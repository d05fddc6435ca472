package rollout

import (
	"context"
	"errors"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/live"
)

// watcher keeps what the fleet's Argo CDs hold current: one live.Read (a
// list per Argo CD), then a live.Watch of each Argo CD's Applications from
// the list's resource version, each change applied to its live.Instance.
// It signals on changed when anything changed: the rollout waits on that,
// never polling.
type watcher struct {
	ctx     context.Context
	connect live.Connect
	opts    live.Options
	changed chan struct{}

	// lost, when set, is told at once when the watch of an Argo CD fails
	// (once, until it is watched again).
	lost func(cluster string, err error)

	mu        sync.Mutex
	f         *fleet.Fleet
	instances []*live.Instance
	clients   map[string]dynamic.Interface
}

func newWatcher(ctx context.Context, connect live.Connect, opts live.Options) *watcher {
	return &watcher{ctx: ctx, connect: connect, opts: opts, changed: make(chan struct{}, 1), clients: map[string]dynamic.Interface{}}
}

func (w *watcher) notify() {
	select {
	case w.changed <- struct{}{}:
	default:
	}
}

// start reads every Argo CD of f and watches those it could read, once.
func (w *watcher) start(f *fleet.Fleet) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.instances != nil {
		return
	}
	w.f = f
	w.instances = live.Read(w.ctx, f, w.connect, w.opts)
	for _, in := range w.instances {
		c := f.Cluster(in.Cluster)
		if in.Error != "" || c == nil {
			continue
		}
		dyn, err := w.connect(c)
		if err != nil {
			in.Error = err.Error()
			continue
		}
		w.clients[in.Cluster] = dyn
		go w.watch(in, dyn)
	}
}

// read returns what the Argo CDs were when start read them (Error set for
// those it could not read).
func (w *watcher) read() []live.Instance {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]live.Instance, len(w.instances))
	for i, in := range w.instances {
		out[i] = *in
	}
	return out
}

// watch applies the changes to in's Applications until the context ends,
// watching again where a watch ended and listing again when its resource
// version expired.
func (w *watcher) watch(in *live.Instance, dyn dynamic.Interface) {
	w.mu.Lock()
	rv, ns := in.ResourceVersion, in.Namespace
	w.mu.Unlock()
	lost := false
	for w.ctx.Err() == nil {
		next, err := live.Watch(w.ctx, dyn, ns, rv, func(ev live.Event) bool {
			lost = false
			w.mu.Lock()
			in.Apply(ev)
			w.mu.Unlock()
			w.notify()
			return true
		})
		rv = next
		switch {
		case errors.Is(err, live.ErrExpired):
			rv = w.relist(in)
		case err != nil && w.ctx.Err() == nil:
			if !lost && w.lost != nil {
				w.lost(in.Cluster, err)
			}
			lost = true
			// The API server went away for a moment: watch again soon.
			select {
			case <-w.ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}
}

// relist reads in's Argo CD again and returns the new resource version.
func (w *watcher) relist(in *live.Instance) string {
	w.mu.Lock()
	f := w.f
	w.mu.Unlock()
	for _, fresh := range live.Read(w.ctx, f, w.connect, w.opts) {
		if fresh.Cluster == in.Cluster && fresh.Error == "" {
			w.mu.Lock()
			*in = *fresh
			w.mu.Unlock()
			w.notify()
			return fresh.ResourceVersion
		}
	}
	return ""
}

// report joins what the Argo CDs hold, now, to what the rendered output
// expects and to the repository's history.
func (w *watcher) report(f *fleet.Fleet, expected []live.Expected, h *live.History) *live.Report {
	w.mu.Lock()
	defer w.mu.Unlock()
	return live.Join(f, expected, w.instances, h)
}

// refresh asks the Argo CD on cluster for a hard refresh of the
// Application name (the argocd.argoproj.io/refresh annotation, which Argo
// CD removes once done): it compares with Git again at once.
func (w *watcher) refresh(ctx context.Context, argocd, name string) error {
	w.mu.Lock()
	dyn, ns := w.clients[argocd], w.opts.Namespace
	w.mu.Unlock()
	if dyn == nil {
		return nil
	}
	if ns == "" {
		ns = live.DefaultNamespace
	}
	patch := []byte(`{"metadata":{"annotations":{"argocd.argoproj.io/refresh":"hard"}}}`)
	_, err := dyn.Resource(live.ApplicationGVR).Namespace(ns).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}

// terminate ends the running operation of the Application name on the
// Argo CD of argocd, if it has one, as argocd app terminate-op does (the
// phase Terminating; the application controller stops it). A sync that
// Argo CD retries keeps the spec it started with: after a revert, only a
// new operation syncs the reverted one.
func (w *watcher) terminate(ctx context.Context, argocd, name string) (bool, error) {
	w.mu.Lock()
	dyn, ns := w.clients[argocd], w.opts.Namespace
	w.mu.Unlock()
	if dyn == nil || !w.running(argocd, name) {
		return false, nil
	}
	if ns == "" {
		ns = live.DefaultNamespace
	}
	patch := []byte(`{"status":{"operationState":{"phase":"Terminating"}}}`)
	_, err := dyn.Resource(live.ApplicationGVR).Namespace(ns).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
	return err == nil, err
}

// running reports whether the Application name on the Argo CD of argocd
// has an operation running (or being terminated).
func (w *watcher) running(argocd, name string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, in := range w.instances {
		if in.Cluster != argocd {
			continue
		}
		for _, a := range in.Applications {
			if a.Name == name && (a.Phase == "Running" || a.Phase == "Terminating") {
				return true
			}
		}
	}
	return false
}
