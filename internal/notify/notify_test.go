package notify_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/notify"
	"github.com/strata-fleet/strata/internal/rollout"
	"github.com/strata-fleet/strata/internal/values"
)

func posAt(line, col int) values.Pos {
	return values.Pos{File: "config/config.yaml", Line: line, Col: col}
}

// receiver records what is posted to it and answers with the codes of
// answer, in turn (200 once they are used up).
type receiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies [][]byte
	answer []int
	got    chan struct{}
}

func newReceiver(t *testing.T, answer ...int) *receiver {
	r := &receiver{answer: answer, got: make(chan struct{}, 1000)}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.bodies = append(r.bodies, b)
		code := http.StatusOK
		if len(r.answer) > 0 {
			code, r.answer = r.answer[0], r.answer[1:]
		}
		r.mu.Unlock()
		w.WriteHeader(code)
		r.got <- struct{}{}
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// await waits for n requests, within a minute.
func (r *receiver) await(t *testing.T, n int) {
	t.Helper()
	timeout := time.After(time.Minute)
	for range n {
		select {
		case <-r.got:
		case <-timeout:
			t.Fatalf("fewer than %d requests within a minute", n)
		}
	}
}

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// events are one of each kind a rollout emits that notifications name,
// among others they do not.
var events = []rollout.Event{
	{Kind: rollout.KindStart, Patch: "workload/demo/patch-001", Time: t0},
	{Kind: rollout.KindPromoted, Patch: "workload/demo/patch-001", Step: "integration/eu-west1", Commit: "0123456789abcdef0123", Time: t0},
	{Kind: rollout.KindWaiting, Patch: "workload/demo/patch-001", Time: t0},
	{Kind: rollout.KindHealthy, Patch: "workload/demo/patch-001", Step: "integration/eu-west1", Healthy: 2, Total: 2, Time: t0},
	{Kind: rollout.KindHeld, Patch: "workload/demo/patch-001", Step: "production/us-east1", Message: "frozen by ops: release week", Time: t0},
	{Kind: rollout.KindGate, Patch: "workload/demo/patch-001", Gates: []string{"production"}, Command: "strata rollout workload demo patch-001 --approve production", Time: t0},
	{Kind: rollout.KindFailed, Patch: "workload/demo/patch-002", Step: "integration/eu-west1", Time: t0,
		Failures: []rollout.Failure{{App: "demo", Cluster: "eu1", Reason: "Degraded: CrashLoopBackOff"}}},
	{Kind: rollout.KindReverted, Patch: "workload/demo/patch-002", Step: "integration/eu-west1", Commit: "fedcba9876543210", Time: t0},
}

func TestNotify(t *testing.T) {
	hook, chat := newReceiver(t), newReceiver(t)
	outcomes := make(chan error, 100)
	nt, err := notify.New([]fleet.Notification{
		{Name: "audit", Kind: "webhook", URL: hook.srv.URL, Timeout: time.Minute},
		{Name: "chat", Kind: "slack", URL: chat.srv.URL, Events: []string{"failed", "folded"}, Timeout: time.Minute},
	}, notify.Options{Now: func() time.Time { return t0 }, Outcome: func(_ string, _ notify.Message, err error) { outcomes <- err }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); nt.Wait() }()
	nt.Run(ctx)
	for _, e := range events {
		nt.Event(e)
	}
	nt.Ended(rollout.PatchResult{Patch: "workload/demo/patch-002", Result: &rollout.Result{Stopped: rollout.StoppedGate}})
	nt.Ended(rollout.PatchResult{Patch: "workload/demo/patch-001", Result: &rollout.Result{Stopped: rollout.StoppedDone}})
	for range 7 + 2 {
		select {
		case err := <-outcomes:
			if err != nil {
				t.Error(err)
			}
		case <-time.After(time.Minute):
			t.Fatal("fewer than 9 messages sent within a minute")
		}
	}

	var got []string
	for _, b := range hook.bodies {
		var m notify.Message
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		got = append(got, m.Event+" "+m.Patch+" "+m.Step+": "+m.Text)
	}
	want := []string{
		"started workload/demo/patch-001 integration/eu-west1: workload/demo/patch-001: step into integration/eu-west1 pushed (0123456789ab)",
		"healthy workload/demo/patch-001 integration/eu-west1: workload/demo/patch-001: step into integration/eu-west1 is healthy (2/2)",
		"frozen workload/demo/patch-001 production/us-east1: workload/demo/patch-001: the step into production/us-east1 is held: frozen by ops: release week",
		"gated workload/demo/patch-001 : workload/demo/patch-001: the next step waits for approval of production: strata rollout workload demo patch-001 --approve production",
		"failed workload/demo/patch-002 integration/eu-west1: workload/demo/patch-002: step into integration/eu-west1 failed: demo on eu1: Degraded: CrashLoopBackOff",
		"reverted workload/demo/patch-002 integration/eu-west1: workload/demo/patch-002: step into integration/eu-west1 reverted (fedcba987654)",
		"folded workload/demo/patch-001 : workload/demo/patch-001 is rolled out and folded into values.yaml",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the webhook's messages (-want +got):\n%s", d)
	}
	var first map[string]any
	if err := json.Unmarshal(hook.bodies[0], &first); err != nil {
		t.Fatal(err)
	}
	if r, ok := first["rollout"].(map[string]any); !ok || r["event"] != "promoted" || r["commit"] != "0123456789abcdef0123" {
		t.Errorf("the webhook's message does not carry the rollout's event: %s", hook.bodies[0])
	}
	wantChat := []string{
		`{"text":":x: workload/demo/patch-002: step into integration/eu-west1 failed: demo on eu1: Degraded: CrashLoopBackOff"}`,
		`{"text":":tada: workload/demo/patch-001 is rolled out and folded into values.yaml"}`,
	}
	if d := cmp.Diff(wantChat, asStrings(chat.bodies)); d != "" {
		t.Errorf("the Slack messages (-want +got):\n%s", d)
	}
	if got := counter(t, nt, "strata_notifications_sent_total", "audit"); got != 7 {
		t.Errorf("sent to audit: %v, want 7", got)
	}
	if got := counter(t, nt, "strata_notifications_sent_total", "chat"); got != 2 {
		t.Errorf("sent to chat: %v, want 2", got)
	}
}

func asStrings(bs [][]byte) []string {
	var out []string
	for _, b := range bs {
		out = append(out, string(b))
	}
	return out
}

// TestRetries: a failure that may pass (5xx, 429) is tried again, one
// that will not (4xx) is given up at once; either way the outcome is
// counted and logged without the URL (a Slack URL is its credential).
func TestRetries(t *testing.T) {
	for _, tc := range []struct {
		name         string
		answer       []int
		attempts     int
		sent, failed float64
	}{
		{"two 503 then 200", []int{503, 503}, 3, 1, 0},
		{"429 then 200", []int{429}, 2, 1, 0},
		{"503 every time", []int{503, 503, 503, 503}, 4, 0, 1},
		{"400 at once", []int{400}, 1, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newReceiver(t, tc.answer...)
			var log bytes.Buffer
			url := r.srv.URL + "/services/T000/B000/secret-token"
			outcomes := make(chan error, 1)
			nt, err := notify.New([]fleet.Notification{{Name: "chat", Kind: "slack", URL: url, Timeout: time.Minute}},
				notify.Options{Backoff: time.Millisecond, Log: slog.New(slog.NewTextHandler(&log, nil)),
					Outcome: func(_ string, _ notify.Message, err error) { outcomes <- err }})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer func() { cancel(); nt.Wait() }()
			nt.Run(ctx)
			nt.Event(events[6])
			select {
			case err := <-outcomes:
				if (err == nil) != (tc.sent == 1) {
					t.Errorf("the outcome: %v", err)
				}
			case <-time.After(time.Minute):
				t.Fatal("no outcome within a minute")
			}
			if got := counter(t, nt, "strata_notifications_sent_total", "chat"); got != tc.sent {
				t.Errorf("sent %v, want %v", got, tc.sent)
			}
			if got := counter(t, nt, "strata_notifications_failed_total", "chat"); got != tc.failed {
				t.Errorf("failed %v, want %v", got, tc.failed)
			}
			if r.mu.Lock(); len(r.bodies) != tc.attempts {
				t.Errorf("%d attempts, want %d", len(r.bodies), tc.attempts)
			}
			r.mu.Unlock()
			if strings.Contains(log.String(), "secret-token") {
				t.Errorf("the log names the URL:\n%s", log.String())
			}
		})
	}
}

// TestDeadReceiverSlowsNothing: a receiver that never answers holds no
// caller of Event: what its queue cannot hold is dropped and counted,
// and another notification gets every message.
func TestDeadReceiverSlowsNothing(t *testing.T) {
	stop, held := make(chan struct{}), make(chan struct{}, 1)
	dead := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		held <- struct{}{}
		<-stop
	}))
	defer dead.Close()
	defer close(stop)
	alive := newReceiver(t)
	sent := make(chan struct{}, 1)
	nt, err := notify.New([]fleet.Notification{
		{Name: "dead", Kind: "webhook", URL: dead.URL, Timeout: time.Hour},
		{Name: "alive", Kind: "webhook", URL: alive.srv.URL, Timeout: time.Minute},
	}, notify.Options{Queue: 2, Outcome: func(name string, _ notify.Message, err error) {
		if name == "alive" && err == nil {
			sent <- struct{}{}
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); nt.Wait() }()
	nt.Run(ctx)
	const n = 100
	nt.Event(events[1])
	select {
	case <-sent:
	case <-time.After(time.Minute):
		t.Fatal("the live receiver got nothing within a minute")
	}
	select {
	case <-held: // the dead receiver holds the first message's attempt
	case <-time.After(time.Minute):
		t.Fatal("the dead receiver got nothing within a minute")
	}
	fed := make(chan error, 1)
	go func() {
		for range n - 1 {
			nt.Event(events[1])
			select {
			case <-sent: // one at a time: alive's queue never fills
			case <-time.After(time.Minute):
				fed <- errors.New("the live receiver got nothing within a minute")
				return
			}
		}
		fed <- nil
	}()
	select {
	case err := <-fed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("feeding 100 events did not end: a dead receiver held the caller")
	}
	// The dead one holds one message in its attempt and two queued.
	if got := counter(t, nt, "strata_notifications_dropped_total", "dead"); got != n-3 {
		t.Errorf("dropped for the dead receiver: %v, want %d", got, n-3)
	}
	if got := counter(t, nt, "strata_notifications_sent_total", "alive"); got != n {
		t.Errorf("sent to the live receiver: %v, want %d", got, n)
	}
}

// TestURLFile: a notification's URL is read from its file at the start;
// a file missing or not holding a URL fails the start, naming it.
func TestURLFile(t *testing.T) {
	r := newReceiver(t)
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "url"), filepath.Join(dir, "bad")
	if err := os.WriteFile(good, []byte(r.srv.URL+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("hooks.slack.com/x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ file, err string }{
		{filepath.Join(dir, "missing"), "notification chat (config/config.yaml:7:5): open " + filepath.Join(dir, "missing")},
		{bad, "notification chat (config/config.yaml:7:5): " + bad + ": expected an http or https URL"},
	} {
		_, err := notify.New([]fleet.Notification{{Name: "chat", Kind: "slack", URLFile: tc.file, Timeout: time.Minute,
			Pos: posAt(7, 5)}}, notify.Options{})
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("urlFile %s: error %v, want %q", tc.file, err, tc.err)
		}
	}
	nt, err := notify.New([]fleet.Notification{{Name: "chat", Kind: "slack", URLFile: good, Timeout: time.Minute}}, notify.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); nt.Wait() }()
	nt.Run(ctx)
	nt.Event(events[1])
	r.await(t, 1)
}

func counter(t *testing.T, nt *notify.Notifier, name, label string) float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(nt.Collectors()...)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if labelOf(m) == label {
				return m.GetCounter().GetValue()
			}
		}
	}
	t.Fatalf("no %s{notification=%q}", name, label)
	return 0
}

func labelOf(m *dto.Metric) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == "notification" {
			return l.GetValue()
		}
	}
	return ""
}

// TestFlush: a run that exits (rollout --once) sends what it changed or
// judged, not the gate or hold it would say again at its next run, nor a
// failure of an earlier run; Flush sends what is queued before it
// returns, and neither a receiver that refuses (tried once more, no
// pause) nor one that hangs (cut off at the bound) keeps it from
// returning: both are counted unsent.
func TestFlush(t *testing.T) {
	alive := newReceiver(t)
	refused := httptest.NewServer(http.NotFoundHandler())
	refusedURL := refused.URL
	refused.Close() // nothing listens: each post is refused at once
	stop := make(chan struct{})
	hanging := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-stop }))
	defer hanging.Close()
	defer close(stop)
	nt, err := notify.New([]fleet.Notification{
		{Name: "alive", Kind: "webhook", URL: alive.srv.URL, Timeout: time.Minute},
		{Name: "refused", Kind: "webhook", URL: refusedURL, Timeout: time.Minute},
		{Name: "hanging", Kind: "webhook", URL: hanging.URL, Timeout: time.Hour},
	}, notify.Options{Changes: true, Backoff: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	nt.Run(context.Background())
	recorded := rollout.Event{Kind: rollout.KindFailed, Patch: "workload/demo/patch-003", Step: "integration/eu-west1", Recorded: true, Time: t0}
	for _, e := range append(slices.Clone(events), recorded) {
		nt.Event(e)
	}
	nt.Ended(rollout.PatchResult{Patch: "workload/demo/patch-001", Result: &rollout.Result{Stopped: rollout.StoppedDone}})

	flushed := make(chan int, 1)
	go func() { flushed <- nt.Flush(3 * time.Second) }()
	var unsent int
	select {
	case unsent = <-flushed:
	case <-time.After(time.Minute):
		t.Fatal("Flush did not return within a minute")
	}
	var got []string
	for _, b := range alive.bodies {
		var m notify.Message
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		got = append(got, m.Event+" "+m.Patch)
	}
	want := []string{"started workload/demo/patch-001", "healthy workload/demo/patch-001", "failed workload/demo/patch-002",
		"reverted workload/demo/patch-002", "folded workload/demo/patch-001"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("sent before Flush returned (-want +got):\n%s", d)
	}
	if got := counter(t, nt, "strata_notifications_failed_total", "refused"); got != 5 {
		t.Errorf("given up for the receiver that refuses: %v, want 5", got)
	}
	if got := counter(t, nt, "strata_notifications_failed_total", "hanging") + counter(t, nt, "strata_notifications_dropped_total", "hanging"); got != 5 {
		t.Errorf("unsent to the receiver that hangs: %v, want 5", got)
	}
	if unsent != 10 {
		t.Errorf("Flush says %d unsent, want 10", unsent)
	}
	nt.Event(events[1]) // after Flush: nothing, no panic
	if n := len(alive.bodies); n != 5 {
		t.Errorf("%d messages sent in all, want 5", n)
	}
}
