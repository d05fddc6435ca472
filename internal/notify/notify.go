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
	"time"

	"github.com/prometheus/client_golang/prometheus"

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
}

// Notifier sends events to the notifications of a fleet's config.
type Notifier struct {
	opts                  Options
	sinks                 []*sink
	sent, failed, dropped *prometheus.CounterVec
	wg                    sync.WaitGroup
	start                 sync.Once
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
	nt := &Notifier{opts: o,
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
		for _, s := range nt.sinks {
			nt.wg.Go(func() { nt.send(ctx, s) })
		}
	})
}

// Wait waits for the senders to end (after Run's ctx).
func (nt *Notifier) Wait() { nt.wg.Wait() }

// Event queues the notifications of a rollout's event, if it is one they
// are sent for. It never blocks.
func (nt *Notifier) Event(e rollout.Event) {
	name, ok := kinds[e.Kind]
	if !ok {
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
		case m := <-s.queue:
			err := nt.deliver(ctx, s, m)
			if ctx.Err() != nil {
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
		if err == nil || !again || attempt >= nt.opts.Attempts {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
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
