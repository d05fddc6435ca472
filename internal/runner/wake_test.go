//go:build linux

package runner_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/kubernetes"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/lock"
	"github.com/strata-fleet/strata/internal/notify"
	"github.com/strata-fleet/strata/internal/output"
	"github.com/strata-fleet/strata/internal/rollout"
	"github.com/strata-fleet/strata/internal/runner"
	"github.com/strata-fleet/strata/internal/testing/testenv"
	"github.com/strata-fleet/strata/internal/testing/testgit"
	"github.com/strata-fleet/strata/internal/webhook"
)

// hooked is a runner that polls once an hour, woken by a webhook: what
// it does after its first look comes from the pushes it is told of.
type hooked struct {
	t      testing.TB
	other  string
	events chan rollout.Event
	hook   *httptest.Server
	n      int
	// wake is the runner's: a send makes it fetch.
	wake chan struct{}
}

func startHooked(t testing.TB, nt *notify.Notifier) *hooked {
	t.Setenv("STRATA_CACHE_DIR", t.TempDir())
	dir, other := filepath.Join(t.TempDir(), "fleet"), filepath.Join(t.TempDir(), "other")
	for p, data := range fleetFiles {
		write(t, dir, p, data)
	}
	if _, err := output.Run(output.Options{Root: dir, FS: os.DirFS(dir)}); err != nil {
		t.Fatal(err)
	}
	bare := testgit.Remote(t, dir)
	testgit.Run(t, "", "clone", "-q", bare, other)

	wake := make(chan struct{}, 1)
	h, err := webhook.New([]byte("secret"), func(context.Context) (bool, error) {
		select {
		case wake <- struct{}{}:
		default:
		}
		return false, nil
	}, webhook.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hk := &hooked{t: t, other: other, events: make(chan rollout.Event, 10000), hook: httptest.NewServer(h), wake: wake}
	t.Cleanup(hk.hook.Close)
	env := rollout.Env{Dir: dir, Git: git.Exec{Dir: dir, Env: testgit.Env}, Events: func(e rollout.Event) {
		if nt != nil {
			nt.Event(e)
		}
		hk.events <- e
	},
		Lock: func(ctx context.Context) (func(), error) {
			l, err := lock.Acquire(ctx, dir, lock.Options{Command: "runner test", Wait: time.Minute})
			if err != nil {
				return nil, err
			}
			return func() { l.Release() }, nil
		}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		o := runner.Options{Env: env, Interval: time.Hour, Wake: wake}
		if nt != nil {
			o.Ended = nt.Ended
		}
		_ = runner.Run(ctx, o)
	}()
	t.Cleanup(func() { cancel(); <-done })
	return hk
}

// push starts patch on the remote from the other clone.
func (hk *hooked) push(patch string) {
	t := hk.t
	t.Helper()
	testgit.Run(t, hk.other, "pull", "-q", "--ff-only")
	write(t, hk.other, "config/workload/demo/integration/us-east1/"+patch+".yaml", "applications:\n  demo:\n    source: {targetRevision: 1.1.0}\n")
	testgit.Run(t, hk.other, "add", "-A")
	testgit.Run(t, hk.other, "commit", "-q", "-m", "start "+patch)
	testgit.Run(t, hk.other, "push", "-q", "origin", "main")
}

// post sends a push event signed as GitHub signs it to the runner's
// webhook.
func (hk *hooked) post() { hk.postTo(hk.hook.URL) }

// postTo sends a push event signed as GitHub signs it to the webhook at
// url.
func (hk *hooked) postTo(url string) {
	t := hk.t
	t.Helper()
	hk.n++
	body := `{"ref":"refs/heads/main"}`
	mac := hmac.New(sha256.New, []byte("secret"))
	mac.Write([]byte(body))
	req, err := http.NewRequest(http.MethodPost, url+"/webhook", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-GitHub-Event", "push")
	req.Header.Set("X-GitHub-Delivery", fmt.Sprint("delivery-", hk.n))
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("the webhook answered %s", resp.Status)
	}
}

// await waits for an event of kind for patch, within a minute.
func (hk *hooked) await(patch string, kind rollout.Kind) {
	t := hk.t
	t.Helper()
	timeout := time.After(time.Minute)
	for {
		select {
		case e := <-hk.events:
			if e.Kind == rollout.KindFailed {
				t.Fatalf("%s failed: %+v", e.Patch, e.Failures)
			}
			if e.Kind == kind && e.Patch == "workload/demo/"+patch {
				return
			}
		case <-timeout:
			t.Fatalf("no %s event of %s within a minute", kind, patch)
		}
	}
}

// TestWebhookWakesTheRunner: a runner that fetches once an hour rolls
// out a patch pushed after its first look as soon as a signed push event
// reaches its webhook.
func TestWebhookWakesTheRunner(t *testing.T) {
	hk := startHooked(t, nil)
	hk.push("patch-001")
	hk.post()
	hk.await("patch-001", rollout.KindGate)
	hk.push("patch-002")
	hk.post()
	hk.await("patch-002", rollout.KindGate)
}

// BenchmarkWebhookReaction: from a signed push event posted to the
// runner's webhook (the patch already pushed) to the rollout's start
// (ns/op) and to its first step pushed (promoted-ms/op); the runner
// polls once an hour.
func BenchmarkWebhookReaction(b *testing.B) {
	hk := startHooked(b, nil)
	var promoted time.Duration
	for i := range b.N {
		b.StopTimer()
		patch := fmt.Sprintf("patch-%03d", i)
		hk.push(patch)
		b.StartTimer()
		start := time.Now()
		hk.post()
		hk.await(patch, rollout.KindStart)
		b.StopTimer()
		hk.await(patch, rollout.KindPromoted)
		promoted += time.Since(start)
		hk.await(patch, rollout.KindGate)
		b.StartTimer()
	}
	b.ReportMetric(float64(promoted.Milliseconds())/float64(b.N), "promoted-ms/op")
}

// BenchmarkWebhookRelay: from a signed push event posted to the webhook
// of the runner that stands by (the patch already pushed) to the
// leader's rollout start (ns/op): the standby sets the annotation of
// their Lease on a real API server, the leader's watch of it wakes its
// fetch. The leader polls once an hour.
func BenchmarkWebhookRelay(b *testing.B) {
	hk := startHooked(b, nil)
	api := testenv.StartAPIServer(b)
	cs, err := kubernetes.NewForConfig(api.Config())
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	leading := make(chan struct{}, 1)
	led := make(chan error, 1)
	go func() {
		leader := runner.Lease{Namespace: "default", Name: "strata", Identity: "leader", Client: cs,
			Pushed: func() {
				select {
				case hk.wake <- struct{}{}:
				default:
				}
			}}
		led <- runner.Lead(ctx, leader, nil, func(ctx context.Context) { leading <- struct{}{}; <-ctx.Done() })
	}()
	b.Cleanup(func() { cancel(); <-led })
	select {
	case <-leading:
	case <-time.After(time.Minute):
		b.Fatal("no leader within a minute")
	}
	standby := runner.Lease{Namespace: "default", Name: "strata", Identity: "standby", Client: cs}
	h, err := webhook.New([]byte("secret"), runner.PushWake(&standby, func() bool { return false }, nil), webhook.Options{})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(h)
	b.Cleanup(srv.Close)
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		patch := fmt.Sprintf("patch-%03d", i)
		hk.push(patch)
		b.StartTimer()
		hk.postTo(srv.URL)
		hk.await(patch, rollout.KindStart)
		b.StopTimer()
		hk.await(patch, rollout.KindGate)
		b.StartTimer()
	}
}

// TestRunnerNotifies: the runner's events reach a notification: the
// rollout's steps pushed and the gate it stops at, each once.
func TestRunnerNotifies(t *testing.T) {
	got := make(chan notify.Message, 100)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m notify.Message
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			t.Errorf("a message that is not JSON: %v", err)
		}
		got <- m
	}))
	defer recv.Close()
	nt, err := notify.New([]fleet.Notification{{Name: "audit", Kind: "webhook", URL: recv.URL, Timeout: time.Minute}}, notify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); nt.Wait() }()
	nt.Run(ctx)
	hk := startHooked(t, nt)
	hk.push("patch-001")
	hk.post()
	var seen []string
	timeout := time.After(time.Minute)
	for len(seen) < 3 {
		select {
		case m := <-got:
			seen = append(seen, m.Event+" "+m.Patch+" "+m.Step)
		case <-timeout:
			t.Fatalf("got %q within a minute, want a step started and a gate", seen)
		}
	}
	// The first copy, pushed without render, is rendered and committed
	// as the rollout's first step (delivered is what rendered/ holds).
	want := []string{"started workload/demo/patch-001 integration/us-east1", "started workload/demo/patch-001 integration/eu-west1", "gated workload/demo/patch-001 "}
	if d := cmp.Diff(want, seen); d != "" {
		t.Errorf("notifications (-want +got):\n%s", d)
	}
}
