package render

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/values"
)

// A reference guarded the way Helm users write optional values is not a
// finding; one that renders an empty string is, with the key it misses.
func TestGuardedReferences(t *testing.T) {
	vals, err := values.Decode("values.yaml", []byte("cluster:\n  name: mc-1\n  region: us-east1\nempty: {}\n"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		text string
		want []string // the references that miss a key
	}{
		{`{{ .Values.cluster.name }}`, nil},
		{`{{ .Values.cluster.repoURL | default "https://git.example.com/fleet" }}`, nil},
		{`{{ default "x" .Values.cluster.repoURL }}`, nil},
		{`{{ .Values.cluster.repoURL | default "x" | quote }}`, nil},
		{`{{ coalesce .Values.cluster.repoURL .Values.cluster.name }}`, nil},
		{`{{ required "set cluster.repoURL" .Values.cluster.repoURL }}`, nil},
		{`{{ if empty .Values.cluster.repoURL }}none{{ end }}`, nil},
		{`{{ if hasKey .Values.cluster "repoURL" }}{{ .Values.cluster.repoURL }}{{ end }}`, nil},
		{`{{ if .Values.cluster.repoURL }}{{ .Values.cluster.repoURL }}{{ end }}`, nil},
		{`{{ with .Values.cluster.repoURL }}{{ . }}{{ end }}`, nil},
		{`{{ with .Values.cluster }}{{ .repoURL | default "x" }}{{ end }}`, nil},
		{`{{ if .Values.other }}{{ $.Values.other.url }}{{ end }}`, nil},
		{`{{ argocd ".name" }}`, nil},
		{"{{`{{ .name }}`}}", nil},
		{`{{ .Release.Name }}-{{ .Chart.Name }}`, nil},
		// Findings.
		{`{{ .Values.cluster.regoin }}`, []string{".Values.cluster.regoin"}},
		{`{{ .name }}`, []string{".name"}},
		{`{{ .Values.cluster.repoURL | quote }}`, []string{".Values.cluster.repoURL"}},
		{`{{ printf "%s-%s" .Values.cluster.name .Values.cluster.zone }}`, []string{".Values.cluster.zone"}},
		{`{{ if .Values.cluster.name }}{{ .Values.cluster.zone }}{{ end }}`, []string{".Values.cluster.zone"}},
		{`{{ if .Values.cluster.zone }}x{{ else }}{{ .Values.cluster.zone }}{{ end }}`, []string{".Values.cluster.zone"}},
		{`{{ $.Values.empty.url }}`, []string{".Values.empty.url"}},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			var got []string
			for _, r := range References(tt.text) {
				if r.Missing(vals) >= 0 {
					got = append(got, "."+strings.Join(r.Path, "."))
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("missing references (-want +got):\n%s", diff)
			}
		})
	}
}
