package livecache

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/kube"
	"github.com/strata-fleet/strata/internal/live"
)

// Cache keeps what the fleet's Argo CDs hold current: one live.Read, then
// a live.Watch of each from the list's resource version (held, scope.go).
// A change wakes the views whose scope it concerns: a rollout waits on
// that, never polling. RunAll's rollouts share one Cache, a View each.
type Cache struct {
	ctx     context.Context
	connect live.Connect
	opts    live.Options

	mu sync.Mutex
	// started is closed when the first Start's read is over.
	starting  bool
	started   chan struct{}
	instances []*held
	clients   map[string]dynamic.Interface
	views     []*View
	// byKey are the views whose scope holds a key: a change wakes only the
	// waits it concerns.
	byKey map[string][]*View
	rf    *refresher
}

// View is one rollout's view of the Cache: its own signal of changes, and
// lost, told once when the watch of an Argo CD fails.
type View struct {
	*Cache
	// changed holds one signal: changes during an evaluation make one more.
	changed chan struct{}
	lost    func(cluster string, err error)
	// scope is what its wait joins (Report); nil: every change wakes it.
	scope  *Scope
	counts *Reactions
}

// Reactions counts, for the tests, the changes that woke a rollout's waits
// and the evaluations of their verdicts.
type Reactions struct{ Woken, Evaluated atomic.Int64 }

func New(ctx context.Context, connect live.Connect, opts live.Options) *Cache {
	if opts.CallTimeout == 0 {
		opts.CallTimeout = callTimeout // each page of its lists
	}
	return &Cache{ctx: ctx, connect: connect, opts: opts, started: make(chan struct{}), clients: map[string]dynamic.Interface{},
		byKey: map[string][]*View{}, rf: newRefresher()}
}

// Open adds a view of w, told of w's changes until close.
func (w *Cache) Open(lost func(cluster string, err error), counts *Reactions) *View {
	v := &View{Cache: w, changed: make(chan struct{}, 1), lost: lost, counts: counts}
	w.mu.Lock()
	w.views = append(w.views, v)
	w.mu.Unlock()
	return v
}

// Changed signals, once however many came, that v's scope may have changed.
func (v *View) Changed() <-chan struct{} { return v.changed }

// Close stops telling v of changes.
func (v *View) Close() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.views = slices.DeleteFunc(v.views, func(x *View) bool { return x == v })
	v.index(nil)
}

// index files v under the keys of sc in byKey, instead of its last
// scope's; mu is held.
func (v *View) index(sc *Scope) {
	if v.scope != nil {
		for _, k := range v.scope.keys {
			v.byKey[k] = slices.DeleteFunc(v.byKey[k], func(x *View) bool { return x == v })
			if len(v.byKey[k]) == 0 {
				delete(v.byKey, k)
			}
		}
	}
	v.scope = sc
	if sc != nil {
		for _, k := range sc.keys {
			v.byKey[k] = append(v.byKey[k], v)
		}
	}
}

// notify wakes every view (an Argo CD read again, or lost).
func (w *Cache) notify() {
	w.mu.Lock()
	views := slices.Clone(w.views)
	w.mu.Unlock()
	for _, v := range views {
		v.wake()
	}
}

// notifyChange wakes the views whose scope holds a key of the Application
// before or after the change, and those without a scope; mu is held.
func (w *Cache) notifyChange(apps ...*live.App) {
	var woken []*View
	for _, a := range apps {
		if a == nil {
			continue
		}
		for _, k := range appKeys(a) {
			for _, v := range w.byKey[k] {
				if !slices.Contains(woken, v) {
					woken = append(woken, v)
				}
			}
		}
	}
	for _, v := range w.views {
		if v.scope == nil && !slices.Contains(woken, v) {
			woken = append(woken, v)
		}
	}
	for _, v := range woken {
		v.wake()
	}
}

// wake signals v's changed.
func (v *View) wake() {
	if v.counts != nil {
		v.counts.Woken.Add(1)
	}
	select {
	case v.changed <- struct{}{}:
	default:
	}
}

// lost tells every view that the watch of the Argo CD on cluster failed.
func (w *Cache) lost(cluster string, err error) {
	w.mu.Lock()
	views := slices.Clone(w.views)
	w.mu.Unlock()
	for _, v := range views {
		if v.lost != nil {
			v.lost(cluster, err)
		}
	}
}

// callTimeout bounds each call the Cache makes outside a step's wait (a
// list again, a refresh, a terminate).
const callTimeout = 30 * time.Second

// Start reads every Argo CD of f once, within ctx (a step's wait), and
// keeps each current from then on (watched, or read again until it can
// be); later starts wait for the first's read, holding nothing of theirs
// (BENCHMARKS.md, delivery).
func (w *Cache) Start(ctx context.Context, f *fleet.Fleet) {
	w.mu.Lock()
	if w.starting {
		w.mu.Unlock()
		<-w.started
		return
	}
	w.starting = true
	w.mu.Unlock()
	defer close(w.started)
	read := live.Read(ctx, f, w.connect, w.opts)
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, in := range read {
		hd := newHeld(in)
		w.instances = append(w.instances, hd)
		if c := f.Cluster(in.Cluster); c != nil {
			go w.watch(hd, c)
		}
	}
}

// Read returns the Argo CDs Start read (Error where it could not), without
// their objects.
func (w *Cache) Read() []live.Instance {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]live.Instance, len(w.instances))
	for i, in := range w.instances {
		out[i] = *in.Instance
		out[i].Applications, out[i].ApplicationSets = nil, nil
	}
	return out
}

// watch applies the changes to in's Applications until the context ends,
// watching again, or reading again when expired or unread.
func (w *Cache) watch(in *held, c *fleet.Cluster) {
	w.mu.Lock()
	rv, ns, unread := in.ResourceVersion, in.Namespace, in.Error != ""
	w.mu.Unlock()
	lost := unread // one the first read missed is reach's to report
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
			old := in.apply(ev)
			w.notifyChange(old, &ev.App)
			w.mu.Unlock()
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
func (w *Cache) pause() {
	select {
	case <-w.ctx.Done():
	case <-time.After(time.Second):
	}
}

// client connects to in's Argo CD; unread (its error in in) when it cannot.
func (w *Cache) client(in *held, c *fleet.Cluster) (dynamic.Interface, bool) {
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

// relist reads in's Argo CD again into in, or why it could not (unread).
func (w *Cache) relist(in *held, c *fleet.Cluster) (dynamic.Interface, bool) {
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
	in.reset(fresh)
	w.mu.Unlock()
	w.notify()
	return w.client(in, c)
}

// Report joins what the Argo CDs hold now to what the rendered output
// expects and the history, within sc (from then on only changes in sc
// wake v); on copies, outside the lock, as the join may ask git.
func (v *View) Report(sc *Scope, h *live.History) *live.Report {
	v.mu.Lock()
	if v.counts != nil {
		v.counts.Evaluated.Add(1)
	}
	if v.scope != sc {
		v.index(sc)
	}
	instances := make([]*live.Instance, len(v.instances))
	for i, in := range v.instances {
		instances[i] = sc.instance(in)
	}
	v.mu.Unlock()
	return live.Join(sc.f, sc.expected, instances, h)
}

// Terminate ends the running operation of the Application name on the
// Argo CD of argocd, as argocd app terminate-op does: a retried sync
// keeps its spec, so after a revert only a new operation syncs.
func (w *Cache) Terminate(ctx context.Context, argocd, name string) (bool, error) {
	if !w.Running(argocd, name) {
		return false, nil
	}
	sent, err := w.patchApp(ctx, argocd, name, `{"status":{"operationState":{"phase":"Terminating"}}}`)
	return sent && err == nil, err
}

// patchApp merge-patches the Application name on the Argo CD of argocd
// within callTimeout; not sent when that Argo CD has no client.
func (w *Cache) patchApp(ctx context.Context, argocd, name, patch string) (sent bool, err error) {
	w.mu.Lock()
	dyn, ns := w.clients[argocd], cmp.Or(w.opts.Namespace, live.DefaultNamespace)
	w.mu.Unlock()
	if dyn == nil {
		return false, nil
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	_, err = dyn.Resource(live.ApplicationGVR).Namespace(ns).Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	return true, err
}

// Running reports whether the Application has an operation running (or
// being terminated).
func (w *Cache) Running(argocd, name string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, in := range w.instances {
		if in.Cluster != argocd {
			continue
		}
		if i, ok := in.at[name]; ok {
			a := in.Applications[i]
			return a.Phase == "Running" || a.Phase == "Terminating"
		}
	}
	return false
}
