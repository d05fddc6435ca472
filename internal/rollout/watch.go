package rollout

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/kube"
	"github.com/strata-fleet/strata/internal/live"
)

// watcher keeps what the fleet's Argo CDs hold current: one live.Read (a
// list per Argo CD), then a live.Watch of each Argo CD's Applications from
// the list's resource version, each change applied to its live.Instance.
// It signals on each view's changed when anything changed: a rollout waits
// on that, never polling. RunAll's rollouts share one watcher (one list and
// one watch per Argo CD, not one per patch), each through its own view.
type watcher struct {
	ctx     context.Context
	connect live.Connect
	opts    live.Options

	mu        sync.Mutex
	f         *fleet.Fleet
	instances []*live.Instance
	clients   map[string]dynamic.Interface
	views     []*watchView
}

// watchView is one rollout's view of a watcher: its own signal of changes
// and its own lost, told at once when the watch of an Argo CD fails (once,
// until it is watched again).
type watchView struct {
	*watcher
	changed chan struct{}
	lost    func(cluster string, err error)
}

func newWatcher(ctx context.Context, connect live.Connect, opts live.Options) *watcher {
	if opts.CallTimeout == 0 {
		opts.CallTimeout = callTimeout // each page of its lists
	}
	return &watcher{ctx: ctx, connect: connect, opts: opts, clients: map[string]dynamic.Interface{}}
}

// view adds a view of w, told of w's changes until close.
func (w *watcher) view(lost func(cluster string, err error)) *watchView {
	v := &watchView{watcher: w, changed: make(chan struct{}, 1), lost: lost}
	w.mu.Lock()
	w.views = append(w.views, v)
	w.mu.Unlock()
	return v
}

// close stops telling v of changes.
func (v *watchView) close() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.views = slices.DeleteFunc(v.views, func(x *watchView) bool { return x == v })
}

func (w *watcher) notify() {
	w.mu.Lock()
	views := slices.Clone(w.views)
	w.mu.Unlock()
	for _, v := range views {
		select {
		case v.changed <- struct{}{}:
		default:
		}
	}
}

// lost tells every view that the watch of the Argo CD on cluster failed.
func (w *watcher) lost(cluster string, err error) {
	w.mu.Lock()
	views := slices.Clone(w.views)
	w.mu.Unlock()
	for _, v := range views {
		if v.lost != nil {
			v.lost(cluster, err)
		}
	}
}

// callTimeout bounds each call the watcher makes on its own, outside a
// step's wait (a list again, a hard refresh, a terminate): an API server
// that hangs or trickles holds none of them longer.
const callTimeout = 30 * time.Second

// start reads every Argo CD of f, once, within ctx (a step's wait, whose
// deadline is the step's timeout), and keeps each one current from then
// on: watched when it was read, read again until it can be when not.
func (w *watcher) start(ctx context.Context, f *fleet.Fleet) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.instances != nil {
		return
	}
	w.f = f
	w.instances = live.Read(ctx, f, w.connect, w.opts)
	for _, in := range w.instances {
		if c := f.Cluster(in.Cluster); c != nil {
			go w.watch(in, c)
		}
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
// watching again where a watch ended, and reading again when its resource
// version expired or it could not be read.
func (w *watcher) watch(in *live.Instance, c *fleet.Cluster) {
	w.mu.Lock()
	rv, ns, unread := in.ResourceVersion, in.Namespace, in.Error != ""
	w.mu.Unlock()
	lost := false
	var dyn dynamic.Interface
	if !unread {
		dyn, unread = w.client(in, c)
	}
	for w.ctx.Err() == nil {
		if unread {
			if dyn, unread = w.relist(in, c); unread {
				if !lost {
					w.mu.Lock()
					reason := in.Error
					w.mu.Unlock()
					w.lost(in.Cluster, errors.New(reason))
				}
				lost = true
				w.pause()
				continue
			}
			rv = in.ResourceVersion
		}
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
			unread = true
		case err != nil && w.ctx.Err() == nil:
			if !lost {
				w.lost(in.Cluster, err)
			}
			lost = true
			// The API server went away for a moment: watch again soon.
			w.pause()
		}
	}
}

// pause waits a second, or until the rollout ends.
func (w *watcher) pause() {
	select {
	case <-w.ctx.Done():
	case <-time.After(time.Second):
	}
}

// client connects to in's Argo CD; unread when it cannot, its error then
// recorded in in.
func (w *watcher) client(in *live.Instance, c *fleet.Cluster) (dynamic.Interface, bool) {
	dyn, err := w.connect(c)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		in.Error, in.Reason = kube.Scrub(err.Error()), kube.Scrub(live.Reason(err))
		return nil, true
	}
	w.clients[in.Cluster] = dyn
	return dyn, false
}

// relist reads in's Argo CD again, each page within callTimeout, and
// records what it read in in, or why it could not; unread when it could not.
func (w *watcher) relist(in *live.Instance, c *fleet.Cluster) (dynamic.Interface, bool) {
	fresh := live.ReadOne(w.ctx, c, w.connect, w.opts)
	if fresh.Error != "" {
		w.mu.Lock()
		changed := in.Error != fresh.Error
		in.Error, in.Reason = fresh.Error, fresh.Reason
		w.mu.Unlock()
		if changed {
			w.notify()
		}
		return nil, true
	}
	w.mu.Lock()
	*in = *fresh
	w.mu.Unlock()
	w.notify()
	return w.client(in, c)
}

// report joins what the Argo CDs hold, now, to what the rendered output
// expects and to the repository's history.
func (w *watcher) report(sc *scope, h *live.History) *live.Report {
	w.mu.Lock()
	defer w.mu.Unlock()
	instances := make([]*live.Instance, len(w.instances))
	for i, in := range w.instances {
		instances[i] = sc.instance(in)
	}
	return live.Join(sc.f, sc.expected, instances, h)
}

// scope is what one wait joins: the expected objects of its rollout's
// cluster type and component that its pick selects, the clusters they are
// on and, of what the Argo CDs hold, those objects, the Applications
// their ApplicationSets made and the clusters' root Applications. A join
// over the whole fleet at each change, in each rollout waiting, scans every
// Application once per cluster (live.Join's roots): 10^8 comparisons at
// 1,000 clusters x 100 components, times the rollouts waiting.
type scope struct {
	f        *fleet.Fleet
	expected []live.Expected
	// names are the expected objects', paths the root Applications'.
	names, paths map[string]bool
}

// scoped is ws's scope for the rollout of ct's component comp, made once.
func (ws *waitSet) scoped(ct, comp string) *scope {
	if ws.scope != nil {
		return ws.scope
	}
	sc := &scope{names: map[string]bool{}, paths: map[string]bool{}}
	clusters := map[string]bool{}
	for _, e := range ws.expected {
		if e.ClusterType != ct || e.Component != comp {
			continue
		}
		// What the pick sees of it, as live.Join makes it.
		commit, _ := ws.history.LastChange(e.File)
		if !ws.pick(live.AppState{Expected: e, Commit: commit}) {
			continue
		}
		sc.expected = append(sc.expected, e)
		sc.names[e.Name] = true
		clusters[e.Cluster] = true
	}
	f := *ws.f
	f.Clusters = nil
	for _, c := range ws.f.Clusters {
		if clusters[c.Name] {
			f.Clusters = append(f.Clusters, c)
			sc.paths[live.RootPath(c)] = true
		}
	}
	sc.f = &f
	ws.scope = sc
	return sc
}

// instance is what in holds of the scope's objects.
func (sc *scope) instance(in *live.Instance) *live.Instance {
	out := *in
	out.Applications, out.ApplicationSets = nil, nil
	for _, a := range in.Applications {
		if sc.names[a.Name] || a.Owner != "" && sc.names[a.Owner] || sc.paths[a.Path] {
			out.Applications = append(out.Applications, a)
		}
	}
	for _, s := range in.ApplicationSets {
		if sc.names[s.Name] {
			out.ApplicationSets = append(out.ApplicationSets, s)
		}
	}
	return &out
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
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
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
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
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
