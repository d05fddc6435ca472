package status_test

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
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
	s := computeFS(t, fsys)
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

// Templated strings are evaluated many at a time (one engine run per
// batch): each still sees its own target's and component's values, a string
// that fails to evaluate is shown as written without failing the others, and
// one that defines a template does not change another's.
func TestRevisionsEvaluatedTogetherStayApart(t *testing.T) {
	var regions []string
	for i := range 300 {
		regions = append(regions, fmt.Sprintf("r%03d", i))
	}
	fsys := fstest.MapFS{
		"config/config.yaml": {Data: []byte(`dimensions: [environments, regions]
repository: {url: https://git.example.com/fleet, revision: main}
sequence:
  environments:
    - name: dev
      regions: [` + strings.Join(regions, ", ") + `]
cluster_types: [mc]
`)},
		"config/mc/defaults.yaml": {Data: []byte("applications:\n  default:\n    project: default\n")},
		"config/mc/a/values.yaml": {Data: []byte(`applications:
  a:
    source:
      repoURL: https://charts.example.com
      chart: a
      targetRevision: '{{ .Values.applications.a.source.chart }}-{{ .Values.cluster.region }}'
  broken:
    source:
      repoURL: https://charts.example.com
      chart: broken
      targetRevision: '{{ fail "no" }}'
  defines:
    source:
      repoURL: https://charts.example.com
      chart: defines
      targetRevision: '{{ define "x" }}d{{ end }}{{ template "x" }}'
`)},
		"config/mc/b/values.yaml": {Data: []byte(`applications:
  b:
    source:
      repoURL: https://charts.example.com
      chart: b
      targetRevision: '{{ .Values.applications.b.source.chart }}-{{ .Values.cluster.region }}'
`)},
	}
	s := computeFS(t, fsys)
	for _, row := range s.ClusterTypes[0].Targets {
		region := row.Path[len(row.Path)-1]
		got := [][]string{row.Cells[0].Revisions(), row.Cells[1].Revisions()}
		want := [][]string{{"a-" + region, `{{ fail "no" }}`, "d"}, {"b-" + region}}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("%s: revisions (-want +got):\n%s", row.Name, d)
		}
	}
}

// A revision the ApplicationSet controller reads from the cluster Secret
// at run time (the regional platform's values source at git_revision) is
// never shown as the expression: the branch for git_revision, which
// strata's bootstrap writes there, and the key for one it does not write.
func TestRevisionReadFromTheClusterSecret(t *testing.T) {
	fsys := fstest.MapFS{
		"config/config.yaml": {Data: []byte(`dimensions: [environments]
repository: {url: https://git.example.com/fleet, revision: main}
sequence:
  environments: [integration]
cluster_types: [mc]
`)},
		"config/mc/defaults.yaml": {Data: []byte("applicationsets:\n  default: {goTemplate: true}\n")},
		"config/mc/platform/values.yaml": {Data: []byte(`applicationsets:
  platform:
    template:
      spec:
        sources:
          - {repoURL: https://git.example.com/fleet, path: charts, targetRevision: '{{ argocd ".metadata.annotations.git_revision" }}'}
          - {repoURL: https://git.example.com/fleet, ref: values, targetRevision: '{{ clusterAnnotation "git_revision" }}'}
          - {repoURL: https://git.example.com/other, path: a, targetRevision: '{{ clusterLabel "release" }}'}
          - {repoURL: https://git.example.com/other, path: b, targetRevision: '{{ argocd "index .metadata.annotations \"api_revision\"" }}'}
`)},
	}
	s := computeFS(t, fsys)
	got := s.ClusterTypes[0].Targets[0].Cells[0]
	want := []string{"main (git_revision)", "(label release)", "(annotation api_revision)"}
	if d := cmp.Diff(want, got.Revisions()); d != "" {
		t.Errorf("revisions (-want +got):\n%s", d)
	}
	if v := got.Versions[0]; v.Secret != "annotations.git_revision" || v.Revision != "main" {
		t.Errorf("first source: secret %q revision %q, want annotations.git_revision and main", v.Secret, v.Revision)
	}
}
