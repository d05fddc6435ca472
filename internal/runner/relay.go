package runner

import (
	"context"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/util/retry"
)

// PushAnnotation is the annotation of the runners' Lease that hands a push
// to the leader: a runner that stands by and takes a signed push webhook
// sets it to a new value ([Relay]); the leader watches its Lease and
// fetches at each new value ([Lease.Pushed]). So a push reaching any
// replica behind the Service wakes the leader, with no address of one pod
// known to another and no permission beyond the Lease itself.
const PushAnnotation = "strata.io/push"

// Relay hands a push to the runner that leads on l: it sets
// PushAnnotation on l's Lease to a value naming this runner and now. It
// updates the Lease (a conflict with the leader's renewal is tried again),
// so it needs only the Lease's get and update, which leader election has.
func Relay(ctx context.Context, l Lease, now time.Time) error {
	leases := l.Client.CoordinationV1().Leases(l.Namespace)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		lease, err := leases.Get(ctx, l.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if lease.Annotations == nil {
			lease.Annotations = map[string]string{}
		}
		lease.Annotations[PushAnnotation] = l.Identity + " " + now.UTC().Format(time.RFC3339Nano)
		_, err = leases.Update(ctx, lease, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("handing the push to the leader through Lease %s/%s: %w", l.Namespace, l.Name, err)
	}
	return nil
}

// watchPushes calls pushed at each new value of l's PushAnnotation until
// ctx ends: a watch of the one Lease (its name as a field selector, so
// that RBAC may name it), watched again from the last version it saw when
// it ends, and from a fresh read when that version is gone. A value set
// before the first read is not a push to act on: the leader fetches when
// it starts anyway.
func watchPushes(ctx context.Context, l Lease, pushed func()) {
	leases := l.Client.CoordinationV1().Leases(l.Namespace)
	selector := fields.OneTermEqualSelector("metadata.name", l.Name).String()
	pause := time.NewTimer(0)
	defer pause.Stop()
	last, known, version := "", false, ""
	seen := func(lease *coordinationv1.Lease) {
		if v := lease.Annotations[PushAnnotation]; known && v != last {
			pushed()
		}
		last, known, version = lease.Annotations[PushAnnotation], true, lease.ResourceVersion
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-pause.C:
		}
		pause.Reset(time.Second) // before the next watch, when this one ends
		if version == "" {
			lease, err := leases.Get(ctx, l.Name, metav1.GetOptions{})
			if err != nil {
				continue
			}
			seen(lease)
		}
		w, err := leases.Watch(ctx, metav1.ListOptions{FieldSelector: selector, ResourceVersion: version})
		if err != nil {
			if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
				version = ""
			}
			continue
		}
		for e := range w.ResultChan() {
			if e.Type == watch.Error {
				version = "" // the version is gone (410): read the Lease again
				break
			}
			if lease, ok := e.Object.(*coordinationv1.Lease); ok && (e.Type == watch.Added || e.Type == watch.Modified) {
				seen(lease)
			}
		}
		w.Stop()
	}
}

// PushWake is what a signed push webhook does on a runner (a
// webhook.Wake): while leading reports that it leads, or without a Lease,
// it calls woken (this runner fetches at once); while it stands by, it
// hands the push to the leader through l ([Relay]).
func PushWake(l *Lease, leading func() bool, woken func()) func(context.Context) (relayed bool, err error) {
	return func(ctx context.Context) (bool, error) {
		if l == nil || leading() {
			woken()
			return false, nil
		}
		return true, Relay(ctx, *l, time.Now())
	}
}
