package rollout_test

import (
	"context"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/record"
	"github.com/strata-fleet/strata/internal/rollout/inflight"
	"github.com/strata-fleet/strata/internal/testing/testgit"
)

// t0 is when the history of flightRepo's commits starts.
var t0 = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

// flightRepo is a fleet repository in a temporary directory: the fixture,
// with a soak of 10m, committed at t0.
type flightRepo struct {
	*harness // its write alone: no API server
}

func newFlightRepo(t *testing.T) *flightRepo {
	r := &flightRepo{&harness{t: t, dir: t.TempDir()}}
	for p, data := range fixture {
		if p == "config/config.yaml" {
			data = strings.Replace(data, "cluster_types:", "rollout: {soak: 10m}\ncluster_types:", 1)
		}
		r.write(p, data)
	}
	r.git(t0, "init", "-q", "-b", "main")
	r.commit(t0, "the fleet")
	return r
}

func (r *flightRepo) git(at time.Time, args ...string) string {
	r.t.Helper()
	date := at.Format(time.RFC3339)
	return testgit.RunEnv(r.t, r.dir, []string{"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date}, args...)
}

// commit commits everything at the time at and returns the commit.
func (r *flightRepo) commit(at time.Time, msg string) string {
	r.git(at, "add", "-A")
	r.git(at, "commit", "-q", "-m", msg)
	return r.git(at, "rev-parse", "HEAD")
}

// load loads the fleet of the repository's work tree, and returns it with
// the repository (open until the test ends).
func (r *flightRepo) load() (*fleet.Fleet, fs.FS) {
	r.t.Helper()
	root, err := os.OpenRoot(r.dir)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { root.Close() })
	f, err := fleet.Load(root.FS())
	if err != nil {
		r.t.Fatal(err)
	}
	return f, root.FS()
}

func (r *flightRepo) flights(opts inflight.FlightOptions) []inflight.Flight {
	r.t.Helper()
	root, err := os.OpenRoot(r.dir)
	if err != nil {
		r.t.Fatal(err)
	}
	defer root.Close()
	f, err := fleet.Load(root.FS())
	if err != nil {
		r.t.Fatal(err)
	}
	if opts.Git == nil {
		opts.Git = git.Exec{Dir: r.dir, Env: testgit.Env}
	}
	got, _, err := inflight.Flights(context.Background(), f, root.FS(), opts)
	if err != nil {
		r.t.Fatal(err)
	}
	return got
}

const secondPatch = "config/workload/demo/integration/eu-west1/patch-001.yaml"

// revertedStep commits the patch's start (returned: no step of strata's)
// and its step to integration/eu-west1, reverted by strata, recorded.
func (r *flightRepo) revertedStep() (first string) {
	r.write(firstPatch, patch)
	first = r.commit(t0.Add(time.Minute), "Start patch-001")
	r.write(secondPatch, patch)
	step := r.commit(t0.Add(2*time.Minute), "Promote patch-001 to integration/eu-west1\n\nStrata-Rollout: workload/demo/patch-001")
	r.git(t0.Add(3*time.Minute), "revert", "--no-edit", step)
	r.record(record.Entry{Kind: record.KindReverted, Node: "integration/eu-west1", Step: step, Targets: []string{"workload/integration/eu-west1"},
		Revert: r.git(t0, "rev-parse", "HEAD"), At: t0.Add(3 * time.Minute), Failures: []string{"integration/eu-west1: Application demo on w2: sync failed"}})
	return first
}

// revertedStepFlights is the flight of revertedStep: stopped by the revert.
func (r *flightRepo) revertedStepFlights() []inflight.Flight {
	head := r.git(t0, "rev-parse", "HEAD")
	return []inflight.Flight{{Patch: "workload/demo/patch-001", At: "integration/us-east1", Next: "integration/eu-west1",
		Step: &inflight.Commit{Commit: head, At: t0.Add(3 * time.Minute), Subject: `Revert "Promote patch-001 to integration/eu-west1"`},
		Waits: []inflight.Wait{{Kind: "change", Node: "integration/eu-west1",
			Message: "a change of the patch's files: the step to integration/eu-west1 (" + r.git(t0, "rev-parse", "--short=12", "HEAD~1") + ") failed and the rollout stays stopped"}},
		LastFailure: &inflight.Failed{Source: "revert", Commit: head, At: t0.Add(3 * time.Minute), Reason: "integration/eu-west1: Application demo on w2: sync failed"}}}
}

func TestFlights(t *testing.T) {
	at := func(d time.Duration) *time.Time { t := t0.Add(d); return &t }
	for _, tc := range []struct {
		name  string
		setup func(r *flightRepo) inflight.FlightOptions
		want  func(r *flightRepo) []inflight.Flight
	}{{
		name:  "nothing in flight is an empty list",
		setup: func(r *flightRepo) inflight.FlightOptions { return inflight.FlightOptions{Now: t0} },
		want:  func(*flightRepo) []inflight.Flight { return []inflight.Flight{} },
	}, {
		name: "a first copy not committed waits for its commit",
		setup: func(r *flightRepo) inflight.FlightOptions {
			r.write(firstPatch, patch)
			return inflight.FlightOptions{Now: t0}
		},
		want: func(*flightRepo) []inflight.Flight {
			return []inflight.Flight{{Patch: "workload/demo/patch-001", At: "integration/us-east1", Next: "integration/eu-west1",
				Waits: []inflight.Wait{{Kind: "commit", Node: "integration/us-east1", Message: "the commit of its first copy (strata rollout commits it)"}}}}
		},
	}, {
		name: "a step soaks from its commit: 6m left of 10m",
		setup: func(r *flightRepo) inflight.FlightOptions {
			r.write(firstPatch, patch)
			r.commit(t0.Add(time.Minute), "Start patch-001 of workload/demo at integration/us-east1")
			return inflight.FlightOptions{Now: t0.Add(5 * time.Minute)}
		},
		want: func(r *flightRepo) []inflight.Flight {
			return []inflight.Flight{{Patch: "workload/demo/patch-001", At: "integration/us-east1", Next: "integration/eu-west1",
				Step:      &inflight.Commit{Commit: r.git(t0, "rev-parse", "HEAD"), At: t0.Add(time.Minute), Subject: "Start patch-001 of workload/demo at integration/us-east1"},
				SoakUntil: at(11 * time.Minute), SoakLeft: "6m0s",
				Waits: []inflight.Wait{{Kind: "soak", Node: "integration/us-east1", Message: "soak until 2026-11-26T12:11:00Z (6m0s left)"}}}}
		},
	}, {
		name: "a soaked step before a manual gate waits for its approval, held by a freeze",
		setup: func(r *flightRepo) inflight.FlightOptions {
			r.write(firstPatch, patch)
			r.commit(t0.Add(time.Minute), "Start patch-001")
			r.write(secondPatch, patch)
			r.commit(t0.Add(2*time.Minute), "Promote patch-001 to integration/eu-west1")
			r.write("config/freezes.yaml", "freezes:\n  - {node: production, by: Jane <jane@example.com>, at: 2026-11-26T12:30:00Z, reason: 'INC-42: failover'}\n")
			return inflight.FlightOptions{Now: t0.Add(time.Hour)}
		},
		want: func(r *flightRepo) []inflight.Flight {
			return []inflight.Flight{{Patch: "workload/demo/patch-001", At: "integration/eu-west1", Next: "production/us-east1",
				Step:   &inflight.Commit{Commit: r.git(t0, "rev-parse", "HEAD"), At: t0.Add(2 * time.Minute), Subject: "Promote patch-001 to integration/eu-west1"},
				Waits:  []inflight.Wait{{Kind: "gate", Node: "production", Message: "approval at the manual gate production"}},
				HeldBy: "freeze of production by Jane <jane@example.com>: INC-42: failover"}}
		},
	}, {
		name: "strata's recorded revert of a step is the last failure, and the rollout stays stopped",
		setup: func(r *flightRepo) inflight.FlightOptions {
			r.revertedStep()
			return inflight.FlightOptions{Now: t0.Add(time.Hour)}
		},
		want: (*flightRepo).revertedStepFlights,
	}, {
		name: "a pass that names no step of the branch does not lift a recorded revert",
		setup: func(r *flightRepo) inflight.FlightOptions {
			first := r.revertedStep() // no Strata-Rollout trailer: not a step
			r.record(record.Entry{Kind: record.KindPassed, Node: "integration/eu-west1", Step: first,
				Targets: []string{"workload/integration/eu-west1"}, At: t0.Add(4 * time.Minute)})
			return inflight.FlightOptions{Now: t0.Add(time.Hour)}
		},
		want: (*flightRepo).revertedStepFlights,
	}, {
		// Issue 36: a person's plain git revert of their own edit was read
		// as a failed step and stopped the patch.
		name: "a person's revert, with a Strata-Failed trailer, is no failure",
		setup: func(r *flightRepo) inflight.FlightOptions {
			r.write(firstPatch, patch)
			r.commit(t0.Add(time.Minute), "Start patch-001")
			r.write(secondPatch, patch)
			step := r.commit(t0.Add(2*time.Minute), "Promote patch-001 to integration/eu-west1\n\nStrata-Rollout: workload/demo/patch-001")
			r.git(t0.Add(3*time.Minute), "revert", "--no-edit", step)
			r.git(t0.Add(3*time.Minute), "commit", "--amend", "-q", "--no-edit", "--trailer", "Strata-Failed: integration/eu-west1: Application demo on w2: sync failed")
			return inflight.FlightOptions{Now: t0.Add(time.Hour)}
		},
		want: func(r *flightRepo) []inflight.Flight {
			head := r.git(t0, "rev-parse", "HEAD")
			return []inflight.Flight{{Patch: "workload/demo/patch-001", At: "integration/us-east1", Next: "integration/eu-west1",
				Step:  &inflight.Commit{Commit: head, At: t0.Add(3 * time.Minute), Subject: `Revert "Promote patch-001 to integration/eu-west1"`},
				Waits: []inflight.Wait{}}}
		},
	}, {
		name: "a record naming a commit that is not the patch's step is ignored",
		setup: func(r *flightRepo) inflight.FlightOptions {
			r.write(firstPatch, patch)
			other := r.commit(t0.Add(time.Minute), "Start patch-001") // no Strata-Rollout trailer: not strata's step
			r.record(record.Entry{Kind: record.KindFailed, Node: "integration/us-east1", Step: other, At: t0.Add(2 * time.Minute),
				Failures: []string{"a forged failure"}})
			return inflight.FlightOptions{Now: t0.Add(time.Hour)}
		},
		want: func(r *flightRepo) []inflight.Flight {
			return []inflight.Flight{{Patch: "workload/demo/patch-001", At: "integration/us-east1", Next: "integration/eu-west1",
				Step:  &inflight.Commit{Commit: r.git(t0, "rev-parse", "HEAD"), At: t0.Add(time.Minute), Subject: "Start patch-001"},
				Waits: []inflight.Wait{}}}
		},
	}, {
		name: "the live state: Applications not healthy yet, one failed",
		setup: func(r *flightRepo) inflight.FlightOptions {
			r.write(firstPatch, patch)
			r.write(secondPatch, patch)
			r.commit(t0.Add(time.Minute), "Start patch-001")
			rep := &live.Report{Cells: []live.Cell{
				{ClusterType: "workload", Target: "workload/integration/us-east1", Component: "demo", Apps: []live.AppState{
					{Expected: live.Expected{Cluster: "w1", Name: "demo"}, State: live.Healthy}}},
				{ClusterType: "workload", Target: "workload/integration/eu-west1", Component: "demo", Apps: []live.AppState{
					{Expected: live.Expected{Cluster: "w2", Name: "demo"}, State: live.Failed, Reason: "sync failed: hook demo-migrate failed"}}},
				{ClusterType: "workload", Target: "workload/production/us-east1", Component: "demo", Apps: []live.AppState{
					{Expected: live.Expected{Cluster: "w3", Name: "demo"}, State: live.Degraded, Reason: "not this patch's"}}},
			}}
			return inflight.FlightOptions{Now: t0.Add(time.Hour), Live: rep}
		},
		want: func(r *flightRepo) []inflight.Flight {
			return []inflight.Flight{{Patch: "workload/demo/patch-001", At: "integration/eu-west1", Next: "production/us-east1",
				Step:        &inflight.Commit{Commit: r.git(t0, "rev-parse", "HEAD"), At: t0.Add(time.Minute), Subject: "Start patch-001"},
				Waits:       []inflight.Wait{{Kind: "sync", Node: "integration/eu-west1", Message: "1 of 2 Applications to be synced and healthy"}, {Kind: "gate", Node: "production", Message: "approval at the manual gate production"}},
				LastFailure: &inflight.Failed{Source: "live", Reason: "demo on w2 is failed: sync failed: hook demo-migrate failed"}}}
		},
	}, {
		name: "the live state: healthy since Argo CD says, the soak counted from then",
		setup: func(r *flightRepo) inflight.FlightOptions {
			r.write(firstPatch, patch)
			r.commit(t0.Add(time.Minute), "Start patch-001")
			rep := &live.Report{Cells: []live.Cell{{ClusterType: "workload", Target: "workload/integration/us-east1", Component: "demo", Apps: []live.AppState{
				{Expected: live.Expected{Cluster: "w1", Name: "demo"}, State: live.Healthy, Live: &live.App{FinishedAt: t0.Add(4 * time.Minute), HealthSince: t0.Add(5 * time.Minute)}}}}}}
			return inflight.FlightOptions{Now: t0.Add(7 * time.Minute), Live: rep}
		},
		want: func(r *flightRepo) []inflight.Flight {
			return []inflight.Flight{{Patch: "workload/demo/patch-001", At: "integration/us-east1", Next: "integration/eu-west1",
				Step:      &inflight.Commit{Commit: r.git(t0, "rev-parse", "HEAD"), At: t0.Add(time.Minute), Subject: "Start patch-001"},
				SoakUntil: at(15 * time.Minute), SoakLeft: "8m0s",
				Waits: []inflight.Wait{{Kind: "soak", Node: "integration/us-east1", Message: "soak until 2026-11-26T12:15:00Z (8m0s left)"}}}}
		},
	}, {
		name: "a fold still soaking is shown at its node",
		setup: func(r *flightRepo) inflight.FlightOptions {
			r.foldAt(t0.Add(2 * time.Minute))
			return inflight.FlightOptions{Now: t0.Add(5 * time.Minute)}
		},
		want: func(r *flightRepo) []inflight.Flight {
			return []inflight.Flight{{Patch: "workload/demo/patch-001", At: "production/us-east1", Removed: "fold",
				Step:      &inflight.Commit{Commit: r.git(t0, "rev-parse", "HEAD"), At: t0.Add(2 * time.Minute), Subject: "Fold patch-001 of workload/demo into values.yaml"},
				SoakUntil: at(12 * time.Minute), SoakLeft: "7m0s",
				Waits: []inflight.Wait{{Kind: "soak", Node: "production/us-east1", Message: "soak until 2026-11-26T12:12:00Z (7m0s left)"}}}}
		},
	}, {
		name: "a fold over nodes of different soaks soaks the longest of them",
		setup: func(r *flightRepo) inflight.FlightOptions {
			// integration soaks 30m, production the top level's 10m: the
			// fold, which changed targets of both, soaks 30m although
			// production's target is the last it changed.
			r.write("config/config.yaml", strings.Replace(fixture["config/config.yaml"],
				"    - name: integration\n", "    - name: integration\n      rollout: {soak: 30m}\n", 1)+"rollout: {soak: 10m}\n")
			r.foldOver(t0.Add(2*time.Minute), true, "workload/integration/us-east1", "workload/production/us-east1")
			return inflight.FlightOptions{Now: t0.Add(15 * time.Minute)}
		},
		want: func(r *flightRepo) []inflight.Flight {
			return []inflight.Flight{{Patch: "workload/demo/patch-001", At: "production/us-east1", Removed: "fold",
				Step:      &inflight.Commit{Commit: r.git(t0, "rev-parse", "HEAD"), At: t0.Add(2 * time.Minute), Subject: "Fold patch-001 of workload/demo into values.yaml"},
				SoakUntil: at(32 * time.Minute), SoakLeft: "17m0s",
				Waits: []inflight.Wait{{Kind: "soak", Node: "production/us-east1", Message: "soak until 2026-11-26T12:32:00Z (17m0s left)"}}}}
		},
	}, {
		// A runner counts it in flight (strata_rollouts_in_flight) until
		// its verdict is recorded: status dropped it once soaked, and the
		// soak test saw them apart for two minutes.
		name: "a fold soaked is shown until strata records its pass",
		setup: func(r *flightRepo) inflight.FlightOptions {
			r.foldAt(t0.Add(2 * time.Minute))
			return inflight.FlightOptions{Now: t0.Add(13 * time.Minute)}
		},
		want: func(r *flightRepo) []inflight.Flight {
			return []inflight.Flight{{Patch: "workload/demo/patch-001", At: "production/us-east1", Removed: "fold", Waits: []inflight.Wait{},
				Step: &inflight.Commit{Commit: r.git(t0, "rev-parse", "HEAD"), At: t0.Add(2 * time.Minute), Subject: "Fold patch-001 of workload/demo into values.yaml"}}}
		},
	}, {
		name: "a fold whose pass strata recorded is no longer shown",
		setup: func(r *flightRepo) inflight.FlightOptions {
			r.foldAt(t0.Add(2 * time.Minute))
			fold := r.git(t0, "rev-parse", "HEAD")
			r.record(record.Entry{Kind: record.KindPassed, Node: "production/us-east1", Step: fold,
				Targets: []string{"workload/production/us-east1"}, At: t0.Add(12 * time.Minute)})
			return inflight.FlightOptions{Now: t0.Add(5 * time.Minute)}
		},
		want: func(*flightRepo) []inflight.Flight { return []inflight.Flight{} },
	}, {
		name: "a reverted first step is shown with its failure",
		setup: func(r *flightRepo) inflight.FlightOptions {
			r.write(firstPatch, patch)
			step := r.commit(t0.Add(time.Minute), "Start patch-001\n\nRendered output changed at:\n  workload/integration/us-east1\n\nStrata-Rollout: workload/demo/patch-001")
			r.git(t0.Add(3*time.Minute), "revert", "--no-edit", step)
			r.git(t0.Add(3*time.Minute), "commit", "--amend", "-q", "--no-edit", "--trailer", "Strata-Failed: integration/us-east1: Application demo on w1: sync failed")
			r.record(record.Entry{Kind: record.KindReverted, Node: "integration/us-east1", Step: step, Targets: []string{"workload/integration/us-east1"},
				Revert: r.git(t0, "rev-parse", "HEAD"), At: t0.Add(3 * time.Minute), Failures: []string{"integration/us-east1: Application demo on w1: sync failed"}})
			return inflight.FlightOptions{Now: t0.Add(5 * time.Minute)}
		},
		want: func(r *flightRepo) []inflight.Flight {
			head := r.git(t0, "rev-parse", "HEAD")
			return []inflight.Flight{{Patch: "workload/demo/patch-001", At: "integration/us-east1", Removed: "revert",
				Step: &inflight.Commit{Commit: head, At: t0.Add(3 * time.Minute), Subject: `Revert "Start patch-001"`},
				Waits: []inflight.Wait{{Kind: "change", Node: "integration/us-east1",
					Message: "a change of the patch's files: the step to integration/us-east1 (" + r.git(t0, "rev-parse", "--short=12", "HEAD~1") + ") failed and the rollout stays stopped"}},
				LastFailure: &inflight.Failed{Source: "revert", Commit: head, At: t0.Add(3 * time.Minute), Reason: "integration/us-east1: Application demo on w1: sync failed"}}}
		},
	}, {
		// Issue 36: a trailer in someone's commit counted as a fold of
		// strata's, settled and shown.
		name: "a fold strata did not record is not shown",
		setup: func(r *flightRepo) inflight.FlightOptions {
			r.foldOver(t0.Add(2*time.Minute), false, "workload/production/us-east1")
			return inflight.FlightOptions{Now: t0.Add(5 * time.Minute)}
		},
		want: func(*flightRepo) []inflight.Flight { return []inflight.Flight{} },
	}} {
		t.Run(tc.name, func(t *testing.T) {
			r := newFlightRepo(t)
			opts := tc.setup(r)
			if diff := cmp.Diff(tc.want(r), r.flights(opts)); diff != "" {
				t.Errorf("flights (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFlightsWithoutHistory: a directory that is no Git repository has no
// steps, soaks or reverts to read; the rest is the fleet's.
func TestFlightsWithoutHistory(t *testing.T) {
	r := newFlightRepo(t)
	r.write(firstPatch, patch)
	if err := os.RemoveAll(filepath.Join(r.dir, ".git")); err != nil {
		t.Fatal(err)
	}
	f, fsys := r.load()
	got, history, err := inflight.Flights(context.Background(), f, fsys, inflight.FlightOptions{Git: git.Exec{Dir: r.dir, Env: append(slices.Clone(testgit.Env), "GIT_CEILING_DIRECTORIES="+filepath.Dir(r.dir))}, Now: t0})
	if err != nil || history {
		t.Fatalf("history %v, err %v; want none read, no error", history, err)
	}
	want := []inflight.Flight{{Patch: "workload/demo/patch-001", At: "integration/us-east1", Next: "integration/eu-west1", Waits: []inflight.Wait{}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("flights (-want +got):\n%s", diff)
	}
}

// TestFlightsReadStopWhenOnlyWhenAsked: status must not call Alertmanager
// or Prometheus unless asked (Alerts); asked, a firing condition holds
// the next step.
func TestFlightsReadStopWhenOnlyWhenAsked(t *testing.T) {
	var firing atomic.Bool
	firing.Store(true)
	var asked atomic.Int32
	inner := alertmanager(t, &firing).Config.Handler
	am := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		asked.Add(1)
		inner.ServeHTTP(w, req)
	}))
	t.Cleanup(am.Close)
	r := newFlightRepo(t)
	cfg, err := os.ReadFile(filepath.Join(r.dir, "config/config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	r.write("config/config.yaml", strings.Replace(string(cfg), "rollout: {soak: 10m}",
		"rollout:\n  soak: 10m\n  stopWhen:\n    - name: critical\n      alertmanager: {url: '"+am.URL+"', matchers: ['severity=\"critical\"']}", 1))
	r.write(firstPatch, patch)
	r.commit(t0.Add(time.Minute), "Start patch-001")
	if got := r.flights(inflight.FlightOptions{Now: t0.Add(time.Hour)}); got[0].HeldBy != "" || asked.Load() != 0 {
		t.Errorf("not asked: held by %q, Alertmanager asked %d times", got[0].HeldBy, asked.Load())
	}
	got := r.flights(inflight.FlightOptions{Now: t0.Add(time.Hour), Alerts: true})
	if want := `stopWhen critical: HighErrorRate{cluster="w1", severity="critical"}: 5xx above 1%`; got[0].HeldBy != want || asked.Load() != 1 {
		t.Errorf("asked: held by %q, want %q (Alertmanager asked %d times)", got[0].HeldBy, want, asked.Load())
	}
}

// foldAt commits the patch at its first two nodes, then its fold (the
// files removed, with the rollout's trailer) at the time at.
func (r *flightRepo) foldAt(at time.Time) { r.foldOver(at, true, "workload/production/us-east1") }

// foldOver is foldAt with a fold that changed the targets changed,
// recorded as strata's step when recorded.
func (r *flightRepo) foldOver(at time.Time, recorded bool, changed ...string) {
	r.write(firstPatch, patch)
	r.write(secondPatch, patch)
	r.commit(at.Add(-time.Minute), "Promote patch-001 to integration/eu-west1\n\nStrata-Rollout: workload/demo/patch-001")
	for _, p := range []string{firstPatch, secondPatch} {
		if err := os.Remove(filepath.Join(r.dir, p)); err != nil {
			r.t.Fatal(err)
		}
	}
	fold := r.commit(at, "Fold patch-001 of workload/demo into values.yaml\n\nRendered output changed at:\n  "+strings.Join(changed, "\n  ")+"\n\nStrata-Rollout: workload/demo/patch-001")
	if recorded {
		r.record(record.Entry{Kind: record.KindStep, Node: "production/us-east1", Step: fold, Targets: changed, At: at})
	}
}

// record writes e for patch-001 into the repository's record as strata
// does: the rendered tree and the patch's files read at its commits.
func (r *flightRepo) record(e record.Entry) {
	r.t.Helper()
	ctx := context.Background()
	g := git.Exec{Dir: r.dir, Env: testgit.Env}
	e.Patch = "workload/demo/patch-001"
	var err error
	if e.Tree, err = record.TreeOf(ctx, g, e.Step, e.Targets); err != nil {
		r.t.Fatal(err)
	}
	files := e.Step
	if e.Revert != "" {
		files = e.Revert
	}
	if e.PatchFiles, err = record.FilesOf(ctx, g, files, e.Patch); err != nil {
		r.t.Fatal(err)
	}
	if err := (&record.Log{Git: g, Dir: r.dir}).Append(ctx, e); err != nil {
		r.t.Fatal(err)
	}
}

// TestSettlingUntilThePassIsRecorded: a fold is settling (a runner counts
// it in strata_rollouts_in_flight, rollout --all settles it) until strata
// records that it passed, as status lists it; it was counted for the
// whole window, two minutes past status in the soak test.
func TestSettlingUntilThePassIsRecorded(t *testing.T) {
	r := newFlightRepo(t)
	r.foldAt(t0.Add(2 * time.Minute))
	settling := func() []string {
		t.Helper()
		f, _ := r.load()
		ids, err := inflight.Settling(context.Background(), git.Exec{Dir: r.dir, Env: testgit.Env}, f, t0.Add(13*time.Minute), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		return ids
	}
	if diff := cmp.Diff([]string{"workload/demo/patch-001"}, settling()); diff != "" {
		t.Errorf("settling, the fold's verdict not recorded (-want +got):\n%s", diff)
	}
	r.record(record.Entry{Kind: record.KindPassed, Node: "production/us-east1", Step: r.git(t0, "rev-parse", "HEAD"),
		Targets: []string{"workload/production/us-east1"}, At: t0.Add(12 * time.Minute)})
	if got := settling(); len(got) != 0 {
		t.Errorf("settling, the fold's pass recorded: %v, want none", got)
	}
}

// TestSettlingFollowsARewrite: a rewrite of the branch (a force-push that
// rewords an older commit) makes the fold again; its copy is settling as
// the fold was, until its pass is recorded. Matched by hash alone, the
// copy was taken for no step of strata's and left unsettled.
func TestSettlingFollowsARewrite(t *testing.T) {
	r := newFlightRepo(t)
	r.foldAt(t0.Add(2 * time.Minute))
	fold := r.git(t0, "rev-parse", "HEAD")
	root := r.git(t0, "rev-list", "--max-parents=0", "HEAD")
	r.git(t0, "checkout", "-q", "--detach", root)
	r.git(t0, "commit", "-q", "--amend", "-m", "the fleet, reworded")
	r.git(t0.Add(2*time.Minute), "rebase", "-q", "--onto", "HEAD", root, "main")
	if r.git(t0, "rev-parse", "HEAD") == fold {
		t.Fatal("the rewrite made the fold again with the same hash")
	}
	f, _ := r.load()
	ids, err := inflight.Settling(context.Background(), git.Exec{Dir: r.dir, Env: testgit.Env}, f, t0.Add(13*time.Minute), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"workload/demo/patch-001"}, ids); diff != "" {
		t.Errorf("settling after the rewrite (-want +got):\n%s", diff)
	}
	// status reads the copy as the fold it settles.
	got := r.flights(inflight.FlightOptions{Now: t0.Add(13 * time.Minute)})
	if len(got) != 1 || got[0].Removed != "fold" || got[0].At != "production/us-east1" {
		t.Errorf("flights after the rewrite: %+v, want the fold settling at production/us-east1", got)
	}
}
