package validate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestValidateProjects: a root in a project that the Argo CD holding it
// does not get from the fleet is an error at the line that set the
// project; an AppProject rendered for that Argo CD, or default, is fine.
func TestValidateProjects(t *testing.T) {
	const (
		hub = "name: hub\ntype: platform\ntarget: prod/hub\n"
		dev = "name: dev-01\ntype: platform\ntarget: dev/dev-01\nserver: https://dev-01.example.com\nhub: hub\nproject: tenant-a\n"
	)
	// The component projects defines tenant-a, switched on where edit says.
	projects := func(at string) map[string]string {
		return map[string]string{
			"config/platform/defaults.yaml":                     string(hubFS(nil)["config/platform/defaults.yaml"].Data) + "appprojects:\n  default: {namespace: argocd}\n",
			"config/platform/projects/values.yaml":              "appprojects:\n  tenant-a: {enabled: false, sourceRepos: ['*']}\n",
			"config/platform/projects/" + at + "/override.yaml": "appprojects:\n  tenant-a: {enabled: true}\n",
		}
	}
	tests := []struct {
		name      string
		inventory map[string]string
		edit      map[string]string
		want      []Finding
	}{
		{
			name:      "a spoke's project that its hub's Argo CD lacks",
			inventory: map[string]string{"hub": hub, "dev-01": dev},
			want: []Finding{{Severity: Error, Check: CheckProject, File: "config/clusters/dev-01.yaml", Line: 6, Path: "project",
				Message: "the root of cluster dev-01 is in project tenant-a, but the Argo CD of hub gets no AppProject tenant-a from the fleet " +
					"(target platform/prod/hub renders none): Argo CD would not sync the root, and strata bootstrap refuses it; " +
					"define it as an item of appprojects in config/platform/, or set project: default"}},
		},
		{
			name:      "rendered for the hub",
			inventory: map[string]string{"hub": hub, "dev-01": dev},
			edit:      projects("prod/hub"),
		},
		{
			name:      "rendered for the spoke is not where its root is",
			inventory: map[string]string{"hub": hub, "dev-01": dev},
			edit:      projects("dev"),
			want: []Finding{{Severity: Error, Check: CheckProject, File: "config/clusters/dev-01.yaml", Line: 6, Path: "project",
				Message: "the root of cluster dev-01 is in project tenant-a, but the Argo CD of hub gets no AppProject tenant-a from the fleet " +
					"(target platform/prod/hub renders none): Argo CD would not sync the root, and strata bootstrap refuses it; " +
					"define it as an item of appprojects in config/platform/, or set project: default"}},
		},
		{
			name:      "default needs none",
			inventory: map[string]string{"hub": hub, "dev-01": "name: dev-01\ntype: platform\ntarget: dev/dev-01\nproject: default\n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []Finding
			for _, f := range checkHub(t, tt.inventory, tt.edit) {
				if f.Check == CheckProject {
					got = append(got, f)
				}
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}
