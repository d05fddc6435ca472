package pin

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFollowingPaths(t *testing.T) {
	const url = "https://git.example.com/platform.git"
	tests := []struct {
		name, doc string
		want      []string
	}{
		{"a source that follows the pin", `spec: {source: {repoURL: https://git.example.com/platform, path: charts/x/, targetRevision: '{{ .Values.cluster.revision }}'}}`,
			[]string{"charts/x"}},
		{"each of several sources", `spec: {sources: [{repoURL: ` + url + `, path: a, targetRevision: '{{ .Values.cluster.revision }}'},
  {repoURL: ` + url + `/, path: b, targetRevision: '{{ .Values.cluster.revision | default "main" }}'}]}`, []string{"a", "b"}},
		{"a source at a revision of its own", `spec: {source: {repoURL: ` + url + `, path: charts/x, targetRevision: v1.2.0}}`, nil},
		{"another repository", `spec: {source: {repoURL: https://example.com/other, path: charts/x, targetRevision: '{{ .Values.cluster.revision }}'}}`, nil},
		{"a path Argo CD's templating makes", `spec: {source: {repoURL: ` + url + `, path: '{{ .path.path }}', targetRevision: '{{ .Values.cluster.revision }}'}}`, nil},
		{"a chart of a Helm repository", `spec: {source: {repoURL: ` + url + `, chart: x, targetRevision: '{{ .Values.cluster.revision }}'}}`, nil},
		{"not YAML", `{`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, followingPaths([]byte(tt.doc), url)); diff != "" {
				t.Errorf("followingPaths (-want +got):\n%s", diff)
			}
		})
	}
}
