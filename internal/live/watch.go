package live

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
)

// Event is a change to one Application.
type Event struct {
	// Type is watch.Added, watch.Modified or watch.Deleted.
	Type watch.EventType
	// App is read as without Options.Specs: no Spec. Those who watch
	// (rollouts) never compare specs, and a rollout that kept the spec
	// of every Application it saw change held a copy of each
	// Application's values in memory (BENCHMARKS.md, delivery).
	App App
}

// WatchSpan is how long one [Watch] lasts.
const WatchSpan = 5 * time.Minute

// watchGrace is how much longer than WatchSpan the client waits for the
// API server to end a watch.
const watchGrace = 15 * time.Second

// ErrExpired is returned by Watch when the resource version it started
// from is too old for the API server: Read again, and watch from there.
var ErrExpired = errors.New("the resource version is too old: list again")

// Watch watches the Applications in namespace ns of one Argo CD from
// resource version rv (an [Instance]'s ResourceVersion, so that no change
// between the list and the watch is lost) and hands each change to fn,
// until fn returns false, ctx ends or the watch fails. It returns the last
// resource version it saw, from which a new Watch continues.
//
// One Watch lasts WatchSpan at most: the API server is asked to end it
// then (timeoutSeconds), and the client ends it a little later should the
// server not, or should it hang or trickle; it then returns with no error,
// and the caller watches again from the resource version it returned.
func Watch(ctx context.Context, dyn dynamic.Interface, ns, rv string, fn func(Event) bool) (string, error) {
	span, cancel := context.WithTimeout(ctx, WatchSpan+watchGrace)
	defer cancel()
	secs := int64(WatchSpan / time.Second)
	w, err := dyn.Resource(ApplicationGVR).Namespace(ns).Watch(span, metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true, TimeoutSeconds: &secs})
	if ctx.Err() == nil && span.Err() != nil {
		return rv, nil
	}
	if err != nil {
		if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
			return rv, ErrExpired
		}
		return rv, err
	}
	defer w.Stop()
	for {
		select {
		case <-span.Done():
			return rv, ctx.Err()
		case ev, ok := <-w.ResultChan():
			if !ok {
				return rv, nil
			}
			switch ev.Type {
			case watch.Error:
				err := apierrors.FromObject(ev.Object)
				if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
					return rv, ErrExpired
				}
				return rv, fmt.Errorf("watching Applications: %w", err)
			case watch.Bookmark:
				if u, ok := ev.Object.(*unstructured.Unstructured); ok {
					rv = u.GetResourceVersion()
				}
				continue
			}
			u, ok := ev.Object.(*unstructured.Unstructured)
			if !ok {
				continue
			}
			rv = u.GetResourceVersion()
			if !fn(Event{Type: ev.Type, App: parseApp(u.Object, false)}) {
				return rv, nil
			}
		}
	}
}
