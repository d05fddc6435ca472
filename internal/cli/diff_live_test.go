package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/live"
)

// drift is a diff --live answer with one of everything.
func drift() *live.Drift {
	e := live.Expected{ArgoCD: "hub", Cluster: "mc-1", ClusterType: "mc", Target: "prod/us-east1", Component: "prometheus", Kind: "Application",
		Name: "mc-1-prometheus", File: "rendered/mc/prod/us-east1/templates/prometheus.yaml"}
	missing := e
	missing.Component, missing.Name, missing.File = "web", "mc-1-web", "rendered/mc/prod/us-east1/templates/web.yaml"
	return &live.Drift{
		ArgoCDs:  []*live.Instance{{Cluster: "hub"}, {Cluster: "hub-eu", Error: "connection refused"}},
		Compared: 1, Differ: 1, OutOfSync: 1, Unhealthy: 1,
		Cells: []live.CellDrift{
			{ClusterType: "mc", Target: "prod/us-east1", Component: "prometheus", State: live.Degraded, Objects: []live.ObjectDrift{{
				Expected: e, State: live.Degraded, Sync: "OutOfSync", Health: "Degraded",
				Diff:      "--- " + e.File + "\n+++ live/hub/Application/mc-1-prometheus\n@@ -1 +1 @@\n-    targetRevision: 77.0.0\n+    targetRevision: 76.0.0\n",
				Resources: []live.Resource{{Group: "apps", Kind: "StatefulSet", Namespace: "monitoring", Name: "prometheus", Status: "OutOfSync", Health: "Degraded", Message: "0/1 ready"}},
			}}},
			{ClusterType: "mc", Target: "prod/us-east1", Component: "web", State: live.Missing, Objects: []live.ObjectDrift{{
				Expected: missing, State: live.Missing, Missing: true, Reason: "Argo CD has no Application mc-1-web",
			}}},
		},
		Unmapped: []live.Unmapped{{ArgoCD: "hub", Kind: "Application", Name: "stray"}},
		Missing:  []live.Expected{missing},
	}
}

func TestPrintDrift(t *testing.T) {
	var b strings.Builder
	printDrift(&b, drift(), false)
	want := `=== prod/us-east1 prometheus (degraded)
Application mc-1-prometheus on hub: OutOfSync, Degraded
--- rendered/mc/prod/us-east1/templates/prometheus.yaml
+++ live/hub/Application/mc-1-prometheus
@@ -1 +1 @@
-    targetRevision: 77.0.0
+    targetRevision: 76.0.0
resource apps/StatefulSet monitoring/prometheus: OutOfSync, Degraded (0/1 ready)

=== prod/us-east1 web (missing)
Application mc-1-web on hub: missing (Argo CD has no Application mc-1-web)

unreachable: hub-eu: connection refused
unmapped: hub: Application stray matches nothing rendered
missing: hub: Application mc-1-web (rendered/mc/prod/us-east1/templates/web.yaml)
1 of 1 live object differ from rendered/; Argo CD reports 1 out of sync, 1 unhealthy; 1 missing; 1 unmapped; 1 Argo CD unreachable
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("printDrift (-want +got):\n%s", diff)
	}
}

// A drift past what a comment holds ends with the command that shows it
// all, run against the repository the run was given (--root).
func TestPrintDriftMarkdownNamesTheRest(t *testing.T) {
	d := drift()
	cell := d.Cells[0]
	cell.Objects = slices.Clone(cell.Objects)
	cell.Objects[0].Diff = lines(2000)
	for range 10 {
		d.Cells = append(d.Cells, cell)
	}
	var b strings.Builder
	printDriftMarkdown(&b, d, (&globals{root: "my fleet"}).strata)
	out := b.String()
	if len(out) > 65536 {
		t.Errorf("comment is %d characters, over GitHub's 65,536", len(out))
	}
	if want := "… and more, past what a comment holds: run `strata --root 'my fleet' diff --live` to see it all.\n"; !strings.HasSuffix(out, want) {
		t.Errorf("want the end %q, got the end:\n%s", want, out[max(0, len(out)-300):])
	}
}

func TestPrintDriftMarkdown(t *testing.T) {
	var b strings.Builder
	printDriftMarkdown(&b, drift(), (&globals{}).strata)
	out := b.String()
	for _, want := range []string{
		"### strata diff --live: 1 of 1 live object differ",
		"- unreachable: hub-eu: connection refused\n",
		"| `prod/us-east1` | prometheus | Application `mc-1-prometheus` on hub | OutOfSync, Degraded |\n",
		"| `prod/us-east1` | web | Application `mc-1-web` on hub | missing (Argo CD has no Application mc-1-web) |\n",
		"+    targetRevision: 76.0.0\n# Argo CD reports:\n# resource apps/StatefulSet monitoring/prometheus: OutOfSync, Degraded (0/1 ready)\n```",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
}
