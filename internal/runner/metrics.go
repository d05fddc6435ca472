package runner

import (
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/strata-fleet/strata/internal/rollout"
)

// Metrics are a runner's Prometheus metrics, made from the rollouts'
// events (Observe):
//
//   - strata_rollouts_in_flight: rollouts running now;
//   - strata_rollout_steps_total: steps committed and pushed;
//   - strata_rollout_step_duration_seconds: from a step's push to its
//     Applications all synced at its commit and healthy;
//   - strata_rollout_failures_total{reason}: steps failed ("step") and
//     rollouts ended by another error ("error");
//   - strata_rollout_reaction_seconds: from the moment a step was done
//     (its last Application healthy, soak and checks passed: the last of
//     those events) to the next step's push;
//   - strata_runner_leader: 1 while this runner holds the Lease (or runs
//     without one);
//   - strata_rollout_step_wait_seconds: how long the step waiting longest
//     has waited since its push (0 when none waits), for an alert on a
//     rollout stuck past its timeout;
//   - strata_runner_healthy: 1 while /healthz is ok, 0 while it fails.
type Metrics struct {
	reg      *prometheus.Registry
	inFlight prometheus.Gauge
	steps    prometheus.Counter
	duration prometheus.Histogram
	failures *prometheus.CounterVec
	reaction prometheus.Histogram
	leader   prometheus.Gauge

	// now is the clock of strata_rollout_step_wait_seconds (time.Now).
	now func() time.Time

	mu sync.Mutex
	// pushed is when each patch's step in progress was pushed, done when
	// its last step was done (zero when none yet).
	pushed, done map[string]time.Time
	health       error
	// unreadable are the rollouts that ended because a stopWhen condition
	// could not be read past its grace, by patch, until the patch's
	// rollout gets past it (readRollout).
	unreadable map[string]*rollout.UnreadableError
}

// NewMetrics returns a runner's metrics, registered on a registry of
// their own.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{Name: "strata_rollouts_in_flight",
			Help: "Patches in flight as status lists them (not folded yet, or settling their last step), whether their rollout runs, waits at a gate or stays stopped after a failure; read at each fetch."}),
		steps: prometheus.NewCounter(prometheus.CounterOpts{Name: "strata_rollout_steps_total",
			Help: "Steps committed and pushed."}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "strata_rollout_step_duration_seconds",
			Help:    "From a step's push to its Applications synced at its commit and healthy.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 14)}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "strata_rollout_failures_total",
			Help: "Steps that failed (reason step) and rollouts ended by another error (reason error)."}, []string{"reason"}),
		reaction: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "strata_rollout_reaction_seconds",
			Help:    "From a step done (last Application healthy, soak and checks passed) to the next step's push.",
			Buckets: []float64{0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300}}),
		leader: prometheus.NewGauge(prometheus.GaugeOpts{Name: "strata_runner_leader",
			Help: "1 while this runner drives the rollouts (holds the Lease, or runs without one)."}),
		pushed: map[string]time.Time{}, done: map[string]time.Time{}, now: time.Now,
		unreadable: map[string]*rollout.UnreadableError{},
	}
	wait := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "strata_rollout_step_wait_seconds",
		Help: "How long the step waiting longest has waited since its push (0 when none waits)."}, m.longestWait)
	healthy := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "strata_runner_healthy",
		Help: "1 while the runner's last look for patches worked (/healthz ok), else 0."}, func() float64 {
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.health != nil {
			return 0
		}
		return 1
	})
	m.reg.MustRegister(m.inFlight, m.steps, m.duration, m.failures, m.reaction, m.leader, wait, healthy)
	m.failures.WithLabelValues("step")
	m.failures.WithLabelValues("error")
	return m
}

// Register adds metrics of the runner's other parts (its webhook, its
// notifications) to what Handler serves.
func (m *Metrics) Register(cs ...prometheus.Collector) error {
	for _, c := range cs {
		if err := m.reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// Observe counts one event of a rollout.
func (m *Metrics) Observe(e rollout.Event) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if readRollout(e) {
		delete(m.unreadable, e.Patch)
	}
	switch e.Kind {
	case rollout.KindPromoted:
		m.steps.Inc()
		if done := m.done[e.Patch]; !done.IsZero() {
			m.reaction.Observe(e.Time.Sub(done).Seconds())
		}
		m.pushed[e.Patch], m.done[e.Patch] = e.Time, time.Time{}
	case rollout.KindHealthy:
		if pushed := m.pushed[e.Patch]; !pushed.IsZero() {
			m.duration.Observe(e.Time.Sub(pushed).Seconds())
			m.pushed[e.Patch] = time.Time{}
		}
		m.done[e.Patch] = e.Time
	case rollout.KindSoaked, rollout.KindUnhealthy, rollout.KindUnwatched:
		m.done[e.Patch] = e.Time
	case rollout.KindCheck:
		if e.Passed {
			m.done[e.Patch] = e.Time
		}
	case rollout.KindFailed:
		m.failures.WithLabelValues("step").Inc()
		m.pushed[e.Patch], m.done[e.Patch] = time.Time{}, time.Time{}
	case rollout.KindDone, rollout.KindGate:
		delete(m.pushed, e.Patch)
		delete(m.done, e.Patch)
	}
}

// longestWait is strata_rollout_step_wait_seconds.
func (m *Metrics) longestWait() float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	var longest time.Duration
	now := m.now()
	for _, at := range m.pushed {
		if !at.IsZero() {
			longest = max(longest, now.Sub(at))
		}
	}
	return longest.Seconds()
}

// readRollout reports whether e shows that its rollout got past a
// stopWhen condition it could not read: a step taken, a verdict, a gate,
// the end, or a hold by what it could read.
func readRollout(e rollout.Event) bool {
	switch e.Kind {
	case rollout.KindPromoted, rollout.KindFailed, rollout.KindGate, rollout.KindDone:
		return true
	case rollout.KindHeld:
		return e.Unreadable == ""
	}
	return false
}

// setUnreadable records that patch's rollout ended on err: /healthz
// answers 503 until the rollout gets past it.
func (m *Metrics) setUnreadable(patch string, err *rollout.UnreadableError) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.unreadable[patch] = err
}

// setHealth records how the runner's last look for patches went.
func (m *Metrics) setHealth(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.health = err
}

// SetLeader records whether this runner drives the rollouts.
func (m *Metrics) SetLeader(leading bool) {
	if leading {
		m.leader.Set(1)
	} else {
		m.leader.Set(0)
	}
}

// Handler serves the metrics at /metrics and the runner's health at
// /healthz: 200 "ok", or 503 with why its last look for patches failed
// (the remote could not be fetched, the repository not loaded), or which
// rollouts are held by a stopWhen condition that has been unreadable for
// longer than its grace.
func (m *Metrics) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		var lines []string
		m.mu.Lock()
		if m.health != nil {
			lines = append(lines, m.health.Error())
		}
		for _, patch := range slices.Sorted(maps.Keys(m.unreadable)) {
			lines = append(lines, patch+": "+m.unreadable[patch].Error())
		}
		m.mu.Unlock()
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if len(lines) > 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(strings.Join(lines, "\n") + "\n"))
			return
		}
		_, _ = w.Write([]byte("ok\n"))
	})
	return mux
}
