//go:build linux

package runner_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/strata-fleet/strata/internal/runner"
	"github.com/strata-fleet/strata/internal/testing/testenv"
)

// TestLead: two runners of one repository against a real API server. One
// leads; the other sees it lead and does not run; the leader stops
// without releasing its Lease (a crash); the other takes over once the
// lease expires.
func TestLead(t *testing.T) {
	api := testenv.StartAPIServer(t)
	cs, err := kubernetes.NewForConfig(api.Config())
	if err != nil {
		t.Fatal(err)
	}
	type runnerState struct {
		cancel  context.CancelFunc
		done    chan error
		leading chan struct{} // closed-over sends: its run started
		seen    chan string   // the leaders it saw
	}
	start := func(id string) *runnerState {
		ctx, cancel := context.WithCancel(context.Background())
		r := &runnerState{cancel: cancel, done: make(chan error, 1), leading: make(chan struct{}, 1), seen: make(chan string, 16)}
		l := runner.Lease{Namespace: "default", Name: "strata-runner", Identity: id, Client: cs,
			Duration: 3 * time.Second, Renew: 2 * time.Second, Retry: 500 * time.Millisecond,
			Leader: func(who string) {
				select {
				case r.seen <- who:
				default:
				}
			}}
		go func() {
			r.done <- runner.Lead(ctx, l, nil, func(ctx context.Context) {
				r.leading <- struct{}{}
				<-ctx.Done()
			})
		}()
		t.Cleanup(func() { cancel(); <-r.done })
		return r
	}
	deadline := func() <-chan time.Time { return time.After(time.Minute) }

	a := start("a")
	select {
	case <-a.leading:
	case <-deadline():
		t.Fatal("a did not lead within a minute")
	}
	b := start("b")
	// b stands by: it sees a lead, and does not run.
	for who := ""; who != "a"; {
		select {
		case who = <-b.seen:
		case <-deadline():
			t.Fatal("b did not see a lead within a minute")
		}
	}
	select {
	case <-b.leading:
		t.Fatal("b runs while a holds the Lease")
	default:
	}

	a.cancel() // no release: b waits for the lease to expire
	if err := <-a.done; !errors.Is(err, context.Canceled) {
		t.Errorf("a ended with %v, want context.Canceled", err)
	}
	a.done <- nil // for the cleanup
	select {
	case <-b.leading:
	case <-deadline():
		t.Fatal("b did not take over within a minute of a's stop")
	}
}
