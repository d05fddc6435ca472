package web

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/strata-fleet/strata/internal/alert"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/rollout/inflight"
)

// conditions keeps what each stopWhen condition said for its interval
// (every:, as a rollout reads it during a wait): the pages of serve --live
// show whether a condition holds the next step of a rollout, and any
// number of page requests read its Alertmanager or Prometheus once per
// interval. An error is kept as long, so that an alerting system that is
// down is not asked at every request either.
type conditions struct {
	read inflight.ConditionReader
	now  func() time.Time

	mu   sync.Mutex
	seen map[string]conditionRead
}

type conditionRead struct {
	at     time.Time
	alerts []alert.Alert
	err    error
}

func newConditions(read inflight.ConditionReader) *conditions {
	return &conditions{read: read, now: time.Now, seen: map[string]conditionRead{}}
}

// Read is a inflight.ConditionReader. The lock is held while it reads (each
// read is bounded by the condition's timeout): concurrent requests wait
// for one read rather than each making its own.
func (cs *conditions) Read(ctx context.Context, c fleet.StopCondition) ([]alert.Alert, error) {
	key := conditionKey(c)
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if r, ok := cs.seen[key]; ok && cs.now().Sub(r.at) < c.Every {
		return r.alerts, r.err
	}
	alerts, err := cs.read(ctx, c)
	if ctx.Err() != nil {
		return alerts, err // the request went away: not what the condition says
	}
	cs.seen[key] = conditionRead{at: cs.now(), alerts: alerts, err: err}
	return alerts, err
}

// conditionKey names what a condition reads: two nodes that declare the
// same condition share its reads.
func conditionKey(c fleet.StopCondition) string {
	switch {
	case c.Prometheus != nil:
		return fmt.Sprintf("prometheus\x00%s\x00%s", c.Prometheus.URL, c.Prometheus.Query)
	case c.Alertmanager != nil:
		return fmt.Sprintf("alertmanager\x00%s\x00%q", c.Alertmanager.URL, c.Alertmanager.Matchers)
	}
	return c.Name
}
