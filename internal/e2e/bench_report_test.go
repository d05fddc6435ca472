//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/strata-fleet/strata/internal/rollout"
	"github.com/strata-fleet/strata/internal/testing/benchfleet/argosim"
)

// benchResult is what BenchmarkE2EDelivery reports.
type benchResult struct {
	took   time.Duration
	maxRSS int
	calls  string
	cpu    map[string]float64
	steps  int
	failed []string
	// Per step: push to Argo CD's first sync operation start, the
	// operations (first start to last end), the last end to the last
	// Application seen healthy, and push to healthy in all.
	toStart, syncing, toHealthy, argo []time.Duration
	// Per pair of steps of a patch: a step's last Application healthy to
	// the next step's push, and its two parts: to strata's healthy event,
	// and from it to the push.
	gaps, seen, written []time.Duration
	// unmatched counts steps whose push or healthy time was not seen.
	unmatched int
}

// analyse matches strata's events (one JSON object a line) with the
// pushes and the Applications' states the recorder saw.
func analyse(t testing.TB, e *Env, rec *recorder, pushes map[string]time.Time, out string) *benchResult {
	r := &benchResult{}
	var events []rollout.Event
	for line := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		var ev rollout.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Errorf("strata's output: not an event: %q", line)
			continue
		}
		events = append(events, ev)
	}
	// The order of main's commits: a revision at or after a step's
	// commit has it.
	bare := strings.TrimSpace(e.Repo.Git("remote", "get-url", "origin"))
	order := map[string]int{}
	for i, c := range strings.Fields(e.Repo.run(bare, "rev-list", "--first-parent", "--reverse", "main")) {
		order[c] = i
	}
	byPatch := map[string][]string{}
	strataHealthy := map[string]time.Time{}
	for _, ev := range events {
		switch ev.Kind {
		case rollout.KindPromoted, rollout.KindDone:
			if ev.Commit != "" {
				byPatch[ev.Patch] = append(byPatch[ev.Patch], ev.Commit)
			}
		case rollout.KindFailed:
			r.failed = append(r.failed, ev.Patch+": "+ev.Message)
		case rollout.KindHealthy:
			strataHealthy[ev.Patch+" "+ev.Commit] = ev.Time
		}
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	// healthyAt is when the last Application a commit changed was first
	// seen synced and healthy at it or after it with the patch's version,
	// and Argo CD's part of that step.
	healthyAt := func(component, commit string) (time.Time, bool) {
		pushed, ok := pushes[commit]
		idx, ok2 := order[commit]
		if !ok || !ok2 {
			return time.Time{}, false
		}
		apps := stepApps(e, component, commit)
		if len(apps) == 0 {
			return time.Time{}, false
		}
		var last, firstStart, lastEnd time.Time
		for _, a := range apps {
			var first time.Time
			for k, at := range rec.healthy[a] {
				if i, ok := order[k.revision]; ok && i >= idx && k.version == benchVersion && (first.IsZero() || at.Before(first)) {
					first = at
				}
			}
			if first.IsZero() {
				return time.Time{}, false
			}
			last = latest(last, first)
			opIdx := -1
			var o op
			for k, x := range rec.ops[a] {
				if i, ok := order[k.revision]; ok && i >= idx && k.version == benchVersion && (opIdx < 0 || i < opIdx) {
					opIdx, o = i, x
				}
			}
			if opIdx >= 0 {
				if firstStart.IsZero() || o.started.Before(firstStart) {
					firstStart = o.started
				}
				lastEnd = latest(lastEnd, o.finished)
			}
		}
		r.argo = append(r.argo, last.Sub(pushed))
		if !firstStart.IsZero() {
			r.toStart = append(r.toStart, firstStart.Sub(pushed))
			r.syncing = append(r.syncing, lastEnd.Sub(firstStart))
			r.toHealthy = append(r.toHealthy, last.Sub(lastEnd))
		}
		return last, true
	}
	for patch, commits := range byPatch {
		component := strings.Split(patch, "/")[1]
		r.steps += len(commits)
		prev, prevOK := time.Time{}, false
		for i, c := range commits {
			h, ok := healthyAt(component, c)
			if i > 0 && prevOK {
				if p, pushed := pushes[c]; pushed {
					r.gaps = append(r.gaps, p.Sub(prev))
					if s, ok := strataHealthy[patch+" "+commits[i-1]]; ok {
						r.seen, r.written = append(r.seen, s.Sub(prev)), append(r.written, p.Sub(s))
					}
				} else {
					r.unmatched++
				}
			}
			prev, prevOK = h, ok
		}
	}
	return r
}

// stepApps names the Applications of component whose rendered files the
// commit changed: <region>-<component> for each rendered/spoke/<env>/<region>.
func stepApps(e *Env, component, commit string) []string {
	var out []string
	for _, f := range strings.Fields(e.Repo.Git("diff-tree", "--no-commit-id", "--name-only", "-r", commit, "--", "rendered/spoke/")) {
		p := strings.Split(f, "/")
		if len(p) < 5 {
			continue
		}
		if a := p[3] + "-" + component; !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func (r *benchResult) report(b *testing.B, clusters, patches, servers int) {
	pct, dist := argosim.Pct, argosim.Dist
	var cpu []string
	for _, k := range slices.Sorted(maps.Keys(r.cpu)) {
		if r.cpu[k] >= 0.05 {
			cpu = append(cpu, fmt.Sprintf("%s %.1f s", k, r.cpu[k]))
		}
	}
	for _, f := range r.failed {
		b.Errorf("a patch failed: %s", f)
	}
	b.ReportMetric(r.took.Seconds(), "rollout-s")
	b.ReportMetric(pct(r.gaps, 0.95).Seconds(), "gap-p95-s")
	b.ReportMetric(float64(r.maxRSS), "peak-rss-MiB")
	b.Logf("%d spokes (aliases of %d API servers), %d patches, real Argo CD, %d CPUs: rollout took %s; %d step commits; "+
		"healthy to next push: %s; of it, healthy to strata's healthy event: %s; that event to the push: %s; "+
		"Argo CD per step, push to healthy: %s; push to its first sync operation: %s; the operations: %s; "+
		"their end to healthy: %s; steps not matched: %d; "+
		"strata's calls: %s; strata's peak RSS %d MiB; CPU during the rollout: %s",
		clusters, servers, patches, runtime.NumCPU(), r.took.Round(10*time.Millisecond), r.steps,
		dist(r.gaps), dist(r.seen), dist(r.written), dist(r.argo), dist(r.toStart), dist(r.syncing), dist(r.toHealthy),
		r.unmatched, r.calls, r.maxRSS, strings.Join(cpu, ", "))
}
