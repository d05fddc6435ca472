package rollout

import (
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

// watcher keeps what the fleet's Argo CDs hold current: one live.Read (a
// list per Argo CD), then a live.Watch of each Argo CD's Applications from
// the list's resource version, each change applied to what it holds of
// that Argo CD (held, scope.go).
// It signals on a view's changed when a change concerns the view's scope:
// a rollout waits on that, never polling. RunAll's rollouts share one
// watcher (one list and one watch per Argo CD, not one per patch), each
// through its own view.
type watcher struct {
	ctx     context.Context
	connect live.Connect
	opts    live.Options

	mu sync.Mutex
	// started is closed when the first start's read is over; starting
	// says that one began.
	starting  bool
	started   chan struct{}
	instances []*held
	clients   map[string]dynamic.Interface
	views     []*watchView
	// byKey are the views whose scope holds a key (see scope.keys), so
	// that a change wakes only the waits it concerns: with many rollouts
	// waiting and thousands of changes, waking each wait at every change
	// cost rollouts x changes joins of its scope.
	byKey map[string][]*watchView
	// rf is the refreshes asked (refresh.go).
	rf *refresher
}

// watchView is one rollout's view of a watcher: its own signal of changes
// and its own lost, told at once when the watch of an Argo CD fails (once,
// until it is watched again).
type watchView struct {
	*watcher
	// changed holds one signal: the changes that come while the rollout
	// evaluates its wait make one more evaluation, not one each.
	changed chan struct{}
	lost    func(cluster string, err error)
	// scope is what its wait joins (report); until it has one, every
	// change wakes it.
	scope  *scope
	counts *reactions
}

// reactions counts, for the tests (export_test.go), the changes that woke
// a rollout's waits and the evaluations of their verdicts.
type reactions struct{ woken, evaluated atomic.Int64 }

func newWatcher(ctx context.Context, connect live.Connect, opts live.Options) *watcher {
	if opts.CallTimeout == 0 {
		opts.CallTimeout = callTimeout // each page of its lists
	}
	return &watcher{ctx: ctx, connect: connect, opts: opts, started: make(chan struct{}), clients: map[string]dynamic.Interface{},
		byKey: map[string][]*watchView{}, rf: newRefresher()}
}

// view adds a view of w, told of w's changes until close.
func (w *watcher) view(lost func(cluster string, err error), counts *reactions) *watchView {
	v := &watchView{watcher: w, changed: make(chan struct{}, 1), lost: lost, counts: counts}
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
	v.index(nil)
}

// index files v under the keys of sc in w.byKey, and no longer under its
// previous scope's; w.mu is held.
func (v *watchView) index(sc *scope) {
	if v.scope != nil {
		for _, k := range v.scope.keys {
			v.byKey[k] = slices.DeleteFunc(v.byKey[k], func(x *watchView) bool { return x == v })
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

// notify wakes every view: what each watches may have changed (an Argo
// CD read again, or lost).
func (w *watcher) notify() {
	w.mu.Lock()
	views := slices.Clone(w.views)
	w.mu.Unlock()
	for _, v := range views {
		v.wake()
	}
}

// notifyChange wakes the views a change to an Application concerns: those
// whose scope holds one of its keys before or after it (appKeys), and
// those without a scope yet. w.mu is held.
func (w *watcher) notifyChange(apps ...*live.App) {
	var woken []*watchView
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

// wake signals v's changed, once however many changes come before the
// rollout reads it.
func (v *watchView) wake() {
	if v.counts != nil {
		v.counts.woken.Add(1)
	}
	select {
	case v.changed <- struct{}{}:
	default:
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
// step's wait (a list again, a refresh, a terminate): an API server
// that hangs or trickles holds none of them longer.
const callTimeout = 30 * time.Second

// start reads every Argo CD of f, once, within ctx (a step's wait, whose
// deadline is the step's timeout), and keeps each one current from then
// on: watched when it was read, read again until it can be when not. The
// starts after the first wait for its read, keeping nothing of theirs:
// at 1,000 clusters a hub's first read takes minutes, and a hundred
// rollouts each holding the fleet it passed meanwhile held hundreds of MB
// (BENCHMARKS.md, delivery).
func (w *watcher) start(ctx context.Context, f *fleet.Fleet) {
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

// read returns which Argo CDs start read, without their objects (Error
// set for those it could not read).
func (w *watcher) read() []live.Instance {
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
// watching again where a watch ended, and reading again when its resource
// version expired or it could not be read.
func (w *watcher) watch(in *held, c *fleet.Cluster) {
	w.mu.Lock()
	rv, ns, unread := in.ResourceVersion, in.Namespace, in.Error != ""
	w.mu.Unlock()
	// An Argo CD the first read could not reach is not "lost": reach
	// reports it, once, where the rollout needs it (one line per Argo CD
	// per rollout said it again before the error).
	lost := unread
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
func (w *watcher) pause() {
	select {
	case <-w.ctx.Done():
	case <-time.After(time.Second):
	}
}

// client connects to in's Argo CD; unread when it cannot, its error then
// recorded in in.
func (w *watcher) client(in *held, c *fleet.Cluster) (dynamic.Interface, bool) {
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
func (w *watcher) relist(in *held, c *fleet.Cluster) (dynamic.Interface, bool) {
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

// report joins what the Argo CDs hold, now, to what the rendered output
// expects and to the repository's history, within sc; from then on, only
// the changes that concern sc wake v. The join reads copies, outside the
// watcher's lock: it may ask git whether a revision contains a commit,
// and neither the watch nor the other rollouts' joins wait for that.
func (v *watchView) report(sc *scope, h *live.History) *live.Report {
	v.mu.Lock()
	if v.counts != nil {
		v.counts.evaluated.Add(1)
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
		if i, ok := in.at[name]; ok {
			a := in.Applications[i]
			return a.Phase == "Running" || a.Phase == "Terminating"
		}
	}
	return false
}
