package validate

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestValidateSecretKeys: an ApplicationSet's reference to a label or
// annotation of its clusters' Secrets is checked against what the fleet
// declares: the inventory's, strata's own, clusters.runtime's. Undeclared
// is an error at the line of config/ that wrote it.
func TestValidateSecretKeys(t *testing.T) {
	const (
		hub = "name: hub\ntype: platform\ntarget: prod/hub\nlabels: {tier: gold}\nannotations: {example.com/owner: platform}\n"
		// The platform ApplicationSet's reference, at line 9 of its values.yaml.
		appset = `applicationsets:
  platform:
    goTemplate: true
    generators: [{clusters: {}}]
    template:
      metadata: {name: '{{ argocd ".name" }}-platform'}
      spec:
        project: default
        destination: {server: '{{ argocd ".server" }}', namespace: platform}
        source: {repoURL: https://example.com/platform, path: charts/platform, targetRevision: main, helm: {valuesObject: {v: 'REF'}}}
`
	)
	defaults := string(hubFS(nil)["config/platform/defaults.yaml"].Data) + "applicationsets:\n  default: {namespace: argocd}\n"
	edit := func(ref, config string) map[string]string {
		m := map[string]string{
			"config/platform/defaults.yaml":        defaults,
			"config/platform/platform/values.yaml": strings.Replace(appset, "REF", ref, 1),
		}
		if config != "" {
			m["config/config.yaml"] = string(hubFS(nil)["config/config.yaml"].Data) + config
		}
		return m
	}
	// undeclared is the finding in each of the three targets.
	undeclared := func(what, key, field, hint string) []Finding {
		var out []Finding
		for _, target := range []string{"dev/dev-01", "prod/hub", "prod/prod-01"} {
			out = append(out, Finding{Severity: Error, Check: CheckSecretKey, Rule: RuleSecretKeyUndeclared,
				File: "rendered/platform/" + target + "/templates/platform.yaml", Path: "spec.template.spec.source.helm.valuesObject.v",
				Message: what + ` "` + key + `" of the cluster Secret is declared for no cluster: no inventory file of config/clusters/ sets it, ` +
					"and config/config.yaml's clusters.runtime." + field + " does not list it; " + hint +
					"if something writes it onto the Secrets at run time (Terraform, a controller), add it to clusters: {runtime: {" + field + ": [" + key + "]}}"})
		}
		return out
	}
	tests := []struct {
		name      string
		inventory map[string]string
		edit      map[string]string
		want      []Finding
	}{
		{"an inventory label", map[string]string{"hub": hub}, edit(`{{ clusterLabel "tier" }}`, ""), nil},
		{"an inventory annotation", map[string]string{"hub": hub}, edit(`{{ clusterAnnotation "example.com/owner" }}`, ""), nil},
		{"strata's own label and annotation", map[string]string{"hub": hub}, edit(`{{ clusterLabel "environment" }}{{ clusterAnnotation "git_revision" }}`, ""), nil},
		{"a runtime annotation", map[string]string{"hub": hub},
			edit(`{{ clusterAnnotation "api_target_group_arn" }}`, "clusters: {runtime: {annotations: [api_target_group_arn]}}\n"), nil},
		{"an undeclared annotation", map[string]string{"hub": hub}, edit(`{{ clusterAnnotation "api_target_group_arn" }}`, ""),
			undeclared("annotation", "api_target_group_arn", "annotations", "")},
		{"a typo of a declared label", map[string]string{"hub": hub}, edit(`{{ clusterLabel "teir" }}`, ""),
			undeclared("label", "teir", "labels", `did you mean clusterLabel "tier"? `)},
		{"written by hand", map[string]string{"hub": hub}, edit("{{`{{ .metadata.annotations.aws_vpc_id }}`}}", ""),
			undeclared("annotation", "aws_vpc_id", "annotations", "")},
		{"a runtime label is not an annotation", map[string]string{"hub": hub},
			edit(`{{ clusterAnnotation "aws_vpc_id" }}`, "clusters: {runtime: {labels: [aws_vpc_id]}}\n"),
			undeclared("annotation", "aws_vpc_id", "annotations", "")},
		{"nothing to check against: no inventory, no runtime keys", nil, edit(`{{ clusterAnnotation "api_target_group_arn" }}`, ""), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []Finding
			for _, f := range checkHub(t, tt.inventory, tt.edit) {
				if f.Check == CheckSecretKey {
					if want := "config/platform/platform/values.yaml:10:"; !strings.HasPrefix(f.Source, want) {
						t.Errorf("finding set at %q, want %s...", f.Source, want)
					}
					f.Source, f.Line = "", 0
					got = append(got, f)
				}
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}
