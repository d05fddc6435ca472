package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// Lease is the Kubernetes Lease runners of one repository elect their
// leader with.
type Lease struct {
	// Namespace and Name are the Lease's (rollout --lease NAMESPACE/NAME).
	Namespace, Name string
	// Identity names this runner in the Lease (its holderIdentity).
	Identity string
	Client   kubernetes.Interface
	// Duration is how long a leader's lease lasts unrenewed: another runner
	// takes over that long after the leader stopped renewing it. Renew is
	// how long the leader tries to renew before it gives up leading, Retry
	// how often each runner tries (defaults 15s, 10s, 2s: client-go's).
	Duration, Renew, Retry time.Duration
	// Release gives the lease up when the leader stops (a SIGTERM), so that
	// another takes over at once rather than after Duration.
	Release bool
	// Leader, when set, is told each leader this runner sees (its own
	// identity when it leads).
	Leader func(identity string)
	// Pushed, when set, is called while this runner leads each time
	// another hands it a push ([Relay]): it must not block. It needs the
	// Lease's watch.
	Pushed func()
}

// ParseLease reads NAMESPACE/NAME.
func ParseLease(s string) (namespace, name string, err error) {
	namespace, name, ok := strings.Cut(s, "/")
	if !ok || namespace == "" || name == "" || strings.Contains(name, "/") {
		return "", "", fmt.Errorf("--lease %s: want NAMESPACE/NAME", s)
	}
	return namespace, name, nil
}

// Lead runs run only while this runner holds l: it waits to acquire the
// Lease, runs run with a context that ends when the lease is lost, and
// then waits to acquire it again, until ctx ends. So two runners never
// drive rollouts at once: the other stands by until the leader's lease
// expires (or is released).
func Lead(ctx context.Context, l Lease, metrics *Metrics, run func(context.Context)) error {
	if l.Identity == "" {
		return errors.New("leader election: no identity")
	}
	var leading sync.Mutex
	cfg := leaderelection.LeaderElectionConfig{
		Lock: &resourcelock.LeaseLock{LeaseMeta: metav1.ObjectMeta{Namespace: l.Namespace, Name: l.Name},
			Client: l.Client.CoordinationV1(), LockConfig: resourcelock.ResourceLockConfig{Identity: l.Identity}},
		LeaseDuration:   orDefault(l.Duration, 15*time.Second),
		RenewDeadline:   orDefault(l.Renew, 10*time.Second),
		RetryPeriod:     orDefault(l.Retry, 2*time.Second),
		ReleaseOnCancel: l.Release,
		Name:            l.Namespace + "/" + l.Name,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				// client-go calls this in a goroutine it does not wait
				// for: the next election waits for it (leading).
				leading.Lock()
				defer leading.Unlock()
				if ctx.Err() != nil {
					return
				}
				if metrics != nil {
					metrics.SetLeader(true)
					defer metrics.SetLeader(false)
				}
				if l.Pushed != nil {
					var watching sync.WaitGroup
					defer watching.Wait()
					wctx, stop := context.WithCancel(ctx)
					defer stop()
					watching.Go(func() { watchPushes(wctx, l, l.Pushed) })
				}
				run(ctx)
			},
			OnStoppedLeading: func() {},
			OnNewLeader: func(identity string) {
				if l.Leader != nil {
					l.Leader(identity)
				}
			},
		},
	}
	for ctx.Err() == nil {
		le, err := leaderelection.NewLeaderElector(cfg)
		if err != nil {
			return fmt.Errorf("leader election on Lease %s/%s: %w", l.Namespace, l.Name, err)
		}
		le.Run(ctx)
		leading.Lock()
		leading.Unlock() //nolint:staticcheck // waits for the run of the lost lease to end
	}
	return context.Cause(ctx)
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
