package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/kube"
	"github.com/strata-fleet/strata/internal/rollout"
)

// Options tune a Notifier.
type Options struct {
	// Queue is how many messages each notification holds unsent before
	// it drops new ones (default 256).
	Queue int
	// Attempts is how many times a message is sent before it is given up
	// (default 4); Backoff the pause after the first failure, doubled
	// after each (default 1 s).
	Attempts int
	Backoff  time.Duration
	// Client sends the requests (default: one with no redirects followed
	// off the webhook's host).
	Client *http.Client
	Log    *slog.Logger
	// Now is the clock of the folded event (default time.Now).
	Now func() time.Time
	// Outcome, when set, is told how each message ended: err nil when
	// it was sent, else why it was given up.
	Outcome func(notification string, m Message, err error)
	// Changes sends only what a run changed or judged: not the manual
	// gate a rollout waits at or the hold it is in (gated, frozen), which
	// a run started again from a schedule (rollout --once) says at each
	// run, and which a long-lived runner says once.
	Changes bool
}

// DefaultFlush bounds Flush at the end of a run that exits (rollout
// --once): what is not sent by then is dropped.
const DefaultFlush = 5 * time.Second

// Notifier sends events to the notifications of a fleet's config.
type Notifier struct {
	opts                  Options
	sinks                 []*sink
	sent, failed, dropped *prometheus.CounterVec
	wg                    sync.WaitGroup
	start                 sync.Once
	// mu guards closed (Flush: no event is queued after) against queue;
	// flushing makes a failed send final (no retry); cancel stops the
	// senders.
	mu       sync.RWMutex
	closed   bool
	flushing atomic.Bool
	flushed  chan struct{} // closed by Flush: a pause before a retry ends
	cancel   context.CancelFunc
}

// sink is one notification: its queue and where it posts.
type sink struct {
	n     fleet.Notification
	url   string
	queue chan Message
}

// New returns a Notifier of ns; it reads each urlFile now, so that a
// missing or wrong file fails the runner's start, not its first failure.
// Run starts its senders.
func New(ns []fleet.Notification, o Options) (*Notifier, error) {
	if o.Queue <= 0 {
		o.Queue = 256
	}
	if o.Attempts <= 0 {
		o.Attempts = 4
	}
	if o.Backoff <= 0 {
		o.Backoff = time.Second
	}
	if o.Client == nil {
		o.Client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	label := []string{"notification"}
	nt := &Notifier{opts: o, flushed: make(chan struct{}),
		sent: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "strata_notifications_sent_total",
			Help: "Notifications of rollout events delivered (a 2xx answer)."}, label),
		failed: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "strata_notifications_failed_total",
			Help: "Notifications given up after their attempts."}, label),
		dropped: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "strata_notifications_dropped_total",
			Help: "Notifications dropped unsent: their queue was full."}, label),
	}
	for _, n := range ns {
		u := n.URL
		if n.URLFile != "" {
			b, err := os.ReadFile(n.URLFile)
			if err != nil {
				return nil, fmt.Errorf("notification %s (%s): %w", n.Name, n.Pos, err)
			}
			u = strings.TrimSpace(string(b))
			if err := fleet.CheckNotifyURL(u); err != nil {
				return nil, fmt.Errorf("notification %s (%s): %s: %w", n.Name, n.Pos, n.URLFile, err)
			}
		}
		nt.sinks = append(nt.sinks, &sink{n: n, url: u, queue: make(chan Message, o.Queue)})
		for _, c := range []*prometheus.CounterVec{nt.sent, nt.failed, nt.dropped} {
			c.WithLabelValues(n.Name)
		}
	}
	return nt, nil
}

// Collectors are the Notifier's metrics, for the runner's registry.
func (nt *Notifier) Collectors() []prometheus.Collector {
	return []prometheus.Collector{nt.sent, nt.failed, nt.dropped}
}

// Run sends the queued messages until ctx ends; what is queued then is
// dropped. It returns at once: the senders run on their own, and Wait
// waits for them.
func (nt *Notifier) Run(ctx context.Context) {
	nt.start.Do(func() {
		ctx, nt.cancel = context.WithCancel(ctx)
		for _, s := range nt.sinks {
			nt.wg.Go(func() { nt.send(ctx, s) })
		}
	})
}

// Wait waits for the senders to end (after Run's ctx).
func (nt *Notifier) Wait() { nt.wg.Wait() }

// Flush ends a Notifier that Run started, for a run that exits: it
// queues no more events, sends what is queued, each message tried once
// more at most (no pause: a receiver that refuses or fails costs no
// wait), for at most d, then stops the senders. It returns how many
// messages were not sent (given up or dropped), each counted and logged.
func (nt *Notifier) Flush(d time.Duration) (unsent int) {
	nt.mu.Lock()
	was := nt.closed
	nt.closed = true
	nt.mu.Unlock()
	if was {
		return nt.unsent()
	}
	nt.flushing.Store(true)
	close(nt.flushed)
	for _, s := range nt.sinks {
		close(s.queue)
	}
	done := make(chan struct{})
	go func() { nt.wg.Wait(); close(done) }()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		if nt.cancel != nil {
			nt.cancel()
		}
		<-done
	}
	for _, s := range nt.sinks {
		for m := range s.queue {
			nt.drop(s, m)
		}
	}
	return nt.unsent()
}

// drop counts and logs m, not sent to s before Flush's bound.
func (nt *Notifier) drop(s *sink, m Message) {
	nt.dropped.WithLabelValues(s.n.Name).Inc()
	nt.opts.Log.Warn("notification not sent: the run ended first", "notification", s.n.Name, "event", m.Event, "patch", m.Patch)
}

// unsent is how many messages were given up or dropped so far.
func (nt *Notifier) unsent() int {
	n := 0
	for _, c := range []*prometheus.CounterVec{nt.failed, nt.dropped} {
		for _, s := range nt.sinks {
			var m dto.Metric
			if err := c.WithLabelValues(s.n.Name).Write(&m); err == nil {
				n += int(m.GetCounter().GetValue())
			}
		}
	}
	return n
}

// Event queues the notifications of a rollout's event, if it is one they
// are sent for. It never blocks.
func (nt *Notifier) Event(e rollout.Event) {
	name, ok := kinds[e.Kind]
	switch {
	case !ok:
		return
	case e.Kind == rollout.KindFailed && e.Recorded:
		return // a failure of an earlier run, sent when it happened
	case nt.opts.Changes && (e.Kind == rollout.KindGate || e.Kind == rollout.KindHeld):
		return
	}
	nt.queue(messageOf(name, e))
}

// Ended queues the notification of a rollout's end that folded its patch.
func (nt *Notifier) Ended(r rollout.PatchResult) {
	if r.Err != nil || r.Result == nil || r.Result.Stopped != rollout.StoppedDone {
		return
	}
	nt.queue(Message{Event: "folded", Patch: r.Patch, Time: nt.opts.Now(),
		Text: r.Patch + " is rolled out and folded into values.yaml"})
}

// kinds are the rollout events sent, by the name notifications give them.
var kinds = map[rollout.Kind]string{
	rollout.KindPromoted: "started",
	rollout.KindHealthy:  "healthy",
	rollout.KindFailed:   "failed",
	rollout.KindReverted: "reverted",
	rollout.KindGate:     "gated",
	rollout.KindHeld:     "frozen",
}

func (nt *Notifier) queue(m Message) {
	nt.mu.RLock()
	defer nt.mu.RUnlock()
	if nt.closed {
		return
	}
	for _, s := range nt.sinks {
		if s.n.Events != nil && !slices.Contains(s.n.Events, m.Event) {
			continue
		}
		select {
		case s.queue <- m:
		default:
			nt.dropped.WithLabelValues(s.n.Name).Inc()
			nt.opts.Log.Warn("notification dropped: its queue is full", "notification", s.n.Name, "event", m.Event, "patch", m.Patch)
		}
	}
}

// send posts s's messages, one at a time, until ctx ends.
func (nt *Notifier) send(ctx context.Context, s *sink) {
	for {
		select {
		case <-ctx.Done():
			return
		case m, ok := <-s.queue:
			if !ok {
				return // flushed
			}
			err := nt.deliver(ctx, s, m)
			if ctx.Err() != nil {
				if nt.flushing.Load() { // cut off by Flush's bound
					nt.drop(s, m)
				}
				return
			}
			if err == nil {
				nt.sent.WithLabelValues(s.n.Name).Inc()
			} else {
				nt.failed.WithLabelValues(s.n.Name).Inc()
				nt.opts.Log.Warn("notification not sent", "notification", s.n.Name, "event", m.Event, "patch", m.Patch,
					"error", kube.Scrub(err.Error()))
			}
			if nt.opts.Outcome != nil { // once counted and logged
				nt.opts.Outcome(s.n.Name, m, err)
			}
		}
	}
}

// deliver posts m to s, trying again after a failure that may pass (no
// answer, 5xx, 429), up to Attempts times.
func (nt *Notifier) deliver(ctx context.Context, s *sink, m Message) error {
	body, err := encode(s.n.Kind, m)
	if err != nil {
		return err
	}
	pause := nt.opts.Backoff
	for attempt := 1; ; attempt++ {
		again, err := nt.post(ctx, s, body)
		if err == nil || !again || attempt >= nt.opts.Attempts || (attempt > 1 && nt.flushing.Load()) {
			return err
		}
		if nt.flushing.Load() {
			continue // once more, without a pause
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-nt.flushed: // tried once more at once
		case <-time.After(pause):
		}
		pause *= 2
	}
}

// post sends body to s once; again says whether a failure may pass.
func (nt *Notifier) post(ctx context.Context, s *sink, body []byte) (again bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, s.n.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return false, fmt.Errorf("posting to the %s URL: %w", s.n.Kind, redact(err, s.url))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "strata-notify")
	resp, err := nt.opts.Client.Do(req)
	if err != nil {
		return true, fmt.Errorf("posting to the %s URL: %w", s.n.Kind, redact(err, s.url))
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 == 2 {
		return false, nil
	}
	again = resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests
	return again, fmt.Errorf("the %s URL answered %s: %s", s.n.Kind, resp.Status, strings.TrimSpace(string(msg)))
}

// redact takes the URL out of err: a Slack webhook's URL is its
// credential.
func redact(err error, u string) error {
	return fmt.Errorf("%s", strings.ReplaceAll(err.Error(), u, "<url>"))
}

// encode is the body posted for m: the message as JSON for a webhook,
// {"text": ...} for Slack.
func encode(kind string, m Message) ([]byte, error) {
	if kind == "slack" {
		return json.Marshal(map[string]string{"text": m.Slack()})
	}
	return json.Marshal(m)
}
