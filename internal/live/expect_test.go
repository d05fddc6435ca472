package live_test

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/render"
)

// TestExpectRepositoryChart: the e2e fleet's own chart names Applications
// <sector>-<region>-<item> and makes the hub's spoke-info ApplicationSet;
// the hub runs its own Argo CD (distributed model) and manages two spokes
// (central model), whose Applications live on the hub's Argo CD. Every
// rendered object maps to its component, found by rendering.
func TestExpectRepositoryChart(t *testing.T) {
	got := expectE2EFleet(t, map[string]string{
		"config/clusters/spoke-a.yaml": "type: spoke\ntarget: integration/int-sector-1/us-east1\nserver: https://a:6443\nhub: hub\n",
		"config/clusters/spoke-b.yaml": "type: spoke\ntarget: integration/int-sector-1/eu-west1\nserver: https://b:6443\nhub: hub\n",
	})
	const hubDir, aDir, bDir = "rendered/hub/integration/int-sector-1/us-east1/templates/", "rendered/spoke/integration/int-sector-1/us-east1/templates/", "rendered/spoke/integration/int-sector-1/eu-west1/templates/"
	want := []live.Expected{
		{ArgoCD: "hub", Cluster: "hub", ClusterType: "hub", Target: "hub/integration/int-sector-1/us-east1", Component: "hub-demo",
			Kind: "Application", Name: "int-sector-1-us-east1-hub-demo", File: hubDir + "int-sector-1-us-east1-hub-demo.yaml"},
		{ArgoCD: "hub", Cluster: "hub", ClusterType: "hub", Target: "hub/integration/int-sector-1/us-east1", Component: "spoke-info",
			Kind: "ApplicationSet", Name: "spoke-info", File: hubDir + "spoke-info.yaml"},
		{ArgoCD: "hub", Cluster: "spoke-a", ClusterType: "spoke", Target: "spoke/integration/int-sector-1/us-east1", Component: "demo",
			Kind: "Application", Name: "int-sector-1-us-east1-demo", File: aDir + "int-sector-1-us-east1-demo.yaml"},
		{ArgoCD: "hub", Cluster: "spoke-b", ClusterType: "spoke", Target: "spoke/integration/int-sector-1/eu-west1", Component: "demo",
			Kind: "Application", Name: "int-sector-1-eu-west1-demo", File: bDir + "int-sector-1-eu-west1-demo.yaml"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("expected objects (-want +got):\n%s", diff)
	}
}

// TestExpectResolvesArgoCDTemplates: a name that keeps a Helm template for
// Argo CD ("{{ .Values.cluster.name }}-...") is expected under the name
// Argo CD's render of the cluster's root gives it.
func TestExpectResolvesArgoCDTemplates(t *testing.T) {
	got := expectE2EFleet(t, map[string]string{"config/hub/hub-demo/integration/override.yaml": "applications:\n  hub-demo:\n    name: \"{{`{{ .Values.cluster.name }}`}}-demo\"\n"})
	var names []string
	for _, e := range got {
		names = append(names, e.Component+": "+e.Name+" ("+e.File+")")
	}
	want := []string{
		"spoke-info: spoke-info (rendered/hub/integration/int-sector-1/us-east1/templates/spoke-info.yaml)",
		"hub-demo: hub-demo (rendered/hub/integration/int-sector-1/us-east1/templates/{{ .Values.cluster.name }}-demo.yaml)",
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("expected objects (-want +got):\n%s", diff)
	}
}

// expectE2EFleet runs Expect on the e2e fleet, with a hub that runs its own
// Argo CD and the files given.
func expectE2EFleet(t *testing.T, files map[string]string) []live.Expected {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../e2e/testdata/fleet")); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "config/clusters/hub.yaml", "type: hub\ntarget: integration/int-sector-1/us-east1\n")
	for name, data := range files {
		write(t, dir, name, data)
	}
	r, err := render.Load(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	got, err := live.Expect(r.Fleet, r.Owners)
	if err != nil {
		t.Fatal(err)
	}
	return got
}
