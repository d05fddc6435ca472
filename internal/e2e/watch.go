//go:build linux

package e2e

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// waitFor calls done at once and after each change of an Application or a
// ConfigMap (watchChanges) until it returns true; refresh every
// refreshEvery; timeout, which fails the test, after ConvergeTimeout.
func (e *Env) waitFor(done func() bool, refresh, timeout func()) {
	e.t.Helper()
	changed, stop := e.watchChanges()
	defer stop()
	deadline := time.NewTimer(ConvergeTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(refreshEvery)
	defer tick.Stop()
	for !done() {
		select {
		case <-changed:
		case <-tick.C:
			refresh()
		case <-deadline.C:
			timeout()
			return
		}
	}
}

// watchChanges watches the Applications of every Argo CD and the
// ConfigMaps of every cluster, and signals on the channel it returns
// (coalesced) each time one changes, until stop is called: what the
// scenarios wait for, instead of polling.
func (e *Env) watchChanges() (changed <-chan struct{}, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan struct{}, 1)
	notify := func() {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	for _, c := range e.ArgoCDs() {
		go rewatch(ctx, notify, func(ctx context.Context) (watch.Interface, error) {
			return c.Dyn.Resource(appGVR).Namespace(Namespace).Watch(ctx, metav1.ListOptions{})
		})
	}
	for _, c := range e.Clusters() {
		go rewatch(ctx, notify, func(ctx context.Context) (watch.Interface, error) {
			return c.Kube.CoreV1().ConfigMaps(metav1.NamespaceAll).Watch(ctx, metav1.ListOptions{})
		})
	}
	return ch, cancel
}

// rewatch calls notify for each event of the watches start opens, opening
// another when one ends (the API server ends them after a while), until
// ctx is done.
func rewatch(ctx context.Context, notify func(), start func(context.Context) (watch.Interface, error)) {
	for ctx.Err() == nil {
		w, err := start(ctx)
		if err != nil {
			// The API server is busy or restarting: try again soon.
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
			continue
		}
		for range w.ResultChan() {
			notify()
		}
		w.Stop()
		notify() // what happened between two watches
	}
}
