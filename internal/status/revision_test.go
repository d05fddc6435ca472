package status_test

import (
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/status"
)

// A chart of the fleet repository whose targetRevision is escaped once runs
// at the revision the cluster's root object follows (Argo CD's Helm render
// of rendered/ resolves it with the root's cluster.revision): status shows
// that revision, the pin, not the expression.
func TestRevisionResolvedAsArgoCDResolvesIt(t *testing.T) {
	const pin = "826fa76d08fc2ce87c863196e52d5a4fa9259a82"
	fsys := fstest.MapFS{
		"config/config.yaml": {Data: []byte(`dimensions: [environments, regions]
repository: {url: https://git.example.com/fleet, revision: main}
sequence:
  environments:
    - name: integration
      regions: [us-east1]
    - name: staging
      revision: ` + pin + `
      regions: [us-east1]
cluster_types: [mc]
`)},
		"config/mc/defaults.yaml": {Data: []byte("applications:\n  default:\n    project: default\n")},
		"config/mc/hypershift/values.yaml": {Data: []byte(`applications:
  hypershift:
    source:
      repoURL: https://git.example.com/fleet
      path: charts/hypershift
      targetRevision: "{{` + "`{{ .Values.cluster.revision }}`" + `}}"
  region:
    source:
      repoURL: https://charts.example.com
      chart: region
      targetRevision: "{{ .Values.cluster.region }}-1"
  generated:
    source:
      repoURL: https://git.example.com/other
      targetRevision: "{{` + "`{{ .branch }}`" + `}}"
`)},
	}
	f, err := fleet.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	s, err := status.Compute(f)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, row := range s.ClusterTypes[0].Targets {
		got[row.Name] = row.Cells[0].Revisions()
	}
	want := map[string][]string{
		"integration/us-east1": {"main", "us-east1-1", "{{ .branch }}"},
		"staging/us-east1":     {pin, "us-east1-1", "{{ .branch }}"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("revisions per target (-want +got):\n%s", d)
	}
}
