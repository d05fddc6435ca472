//go:build linux

package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/strata-fleet/strata/internal/alert"
	"github.com/strata-fleet/strata/internal/testing/promenv"
	"github.com/strata-fleet/strata/internal/testing/testgit"
)

// demoApps selects the demo Applications of integration's spokes in Argo
// CD's metrics (appName; not the hub's int-sector-1-us-east1-hub-demo):
// the Applications the rollout's integration steps change.
const demoApps = `name=~"int-sector-1-(us-east1|eu-west1)-demo"`

// TestE2EStopTheLine: stop-the-line against real alerting. A Prometheus
// scrapes the hub's Argo CD application controller; the rollout's check
// reads Argo CD's own metrics through it (argocd_app_info of the demo
// Applications not Healthy: none, so each step's check passes) up to the
// manual gate. Approved, the step into stage soaks while an alert posted
// to a real Alertmanager fires: rollout.stopWhen fails the step, which
// --on-failure revert reverts, and stage's cluster runs 1.0.0 again.
func TestE2EStopTheLine(t *testing.T) {
	testgit.Setenv(t)
	SkipShort(t)
	am := promenv.StartAlertmanager(t)
	e := Start(t, Options{Spokes: rolloutSpokes})
	defer e.Done()
	mark := e.Mark()
	prom := promenv.StartPrometheus(t, e.ArgoCD.ControllerMetrics)
	mark("start Alertmanager and Prometheus")

	e.Repo.ReplaceInFile("config/config.yaml", "cluster_types:", fmt.Sprintf(`rollout:
  checks:
    - name: argocd-health
      prometheus: {url: '%s', query: 'argocd_app_info{%s, health_status!="Healthy"}'}
  stopWhen:
    - name: critical
      alertmanager: {url: '%s', matchers: ['severity="critical"', 'team="fleet"']}
      every: 1s
cluster_types:`, prom.URL, demoApps, am.URL))
	head := deploy(t, e)
	e.Converge(Expect{Head: head, Apps: expectApps(e), State: expectState(e, allAt(e, "1.0.0"))})
	mark("deploy the fleet at 1.0.0")

	// The check reads what Prometheus scraped from Argo CD: both demo
	// Applications, Healthy (a query over nothing would pass any check).
	prom.WaitFor(t, `count(argocd_app_info{`+demoApps+`, health_status="Healthy", sync_status="Synced"}) == 2`, 2*time.Minute)
	samples, err := alert.Client{}.Query(context.Background(), prom.URL, `argocd_app_info{`+demoApps+`}`)
	if err != nil || len(samples) != 2 {
		t.Fatalf("Argo CD's metrics in Prometheus: %v, %v; want the two demo Applications", samples, err)
	}
	mark("Prometheus scrapes Argo CD")

	e.Repo.WriteFile(firstRegion+"patch-001.yaml", patch001)
	r := e.rollout(context.Background(), "", nil, "patch-001")
	for _, step := range []string{"integration/int-sector-1/us-east1", "integration/int-sector-1/eu-west1"} {
		if !strings.Contains(r.Stdout, step+": check argocd-health passed\n") {
			t.Errorf("no passed check at %s", step)
		}
	}
	if r.Code != 4 || !strings.HasSuffix(r.Stdout, " --approve stage\n") {
		t.Fatalf("the rollout with a Prometheus check: want it at the gate of stage, exit 4; got exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	mark("rollout with a Prometheus check over Argo CD's metrics, up to the gate")

	// A silenced alert and another team's do not stop the line.
	am.Silence(t, map[string]string{"alertname": "Known"})
	am.Fire(t, promenv.Alert{Labels: map[string]string{"alertname": "Known", "severity": "critical", "team": "fleet"}},
		promenv.Alert{Labels: map[string]string{"alertname": "OtherTeam", "severity": "critical", "team": "db"}})
	beforeStage := e.Repo.Git("rev-parse", "HEAD")
	fire := func() {
		am.Fire(t, promenv.Alert{Labels: map[string]string{"alertname": "HighErrorRate", "severity": "critical", "team": "fleet", "cluster": "spoke-c"},
			Annotations: map[string]string{"summary": "5xx above 1%"}})
	}
	// Fired once the step's soak began: the stopWhen guard reads it
	// within a second (every: 1s), and once more as the 3 s soak ends.
	r = e.rollout(context.Background(), "stage/stage-sector-1/ap-south1: soaking", fire, "patch-001", "--approve", "stage", "--on-failure", "revert")
	want := `stopWhen critical holds during the step's wait or soak: HighErrorRate{cluster="spoke-c", severity="critical", team="fleet"}: 5xx above 1%`
	if r.Code != 1 || !strings.Contains(r.Stderr, want) || !strings.Contains(r.Stderr, "reverted by ") {
		t.Fatalf("the alert during the soak: want exit 1 with %q, reverted; got exit %d\n%s%s", want, r.Code, r.Stdout, r.Stderr)
	}
	if got := e.Repo.Changed(beforeStage, "HEAD", "rendered"); len(got) > 0 {
		t.Errorf("rendered/ after the revert differs from before the step into stage: %v", got)
	}
	mark("alert during the soak: the step failed and reverted")
	versions := allAt(e, "1.1.0")
	versions["spoke-c"] = "1.0.0"
	e.Converge(Expect{Head: e.Repo.Git("rev-parse", "HEAD"), Apps: expectApps(e), State: expectState(e, versions)})
	mark("stage back at 1.0.0")
}
