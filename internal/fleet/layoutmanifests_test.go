package fleet_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/strata-fleet/strata/internal/fleet"
)

func fleetConfig(t *testing.T, doc string) (*fleet.Config, error) {
	t.Helper()
	return fleet.ReadConfig(fstest.MapFS{fleet.ConfigPath: {Data: []byte(doc)}}, nil)
}

// layout.manifests: the file (or the {name} file) each resource is in,
// relative to its target's directory; without it, strata's chart.
func TestLayoutManifests(t *testing.T) {
	const path = "layout:\n  path: argocd/rendered/{environment}/{region}/{clusterType}-manifests\n"
	for _, tc := range []struct {
		name, manifests string
		plain           bool
		file            string // the file of the resource called frontend-api
	}{
		{"chart", "", false, "templates/frontend-api.yaml"},
		{"one file, as render.py", "  manifests: applicationset.yaml\n", true, "applicationset.yaml"},
		{"a file per resource", "  manifests: '{name}.yaml'\n", true, "frontend-api.yaml"},
		{"a file per resource, fixed text", "  manifests: 'app-{name}.yml'\n", true, "app-frontend-api.yml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := readLayoutConfig(t, path+tc.manifests)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Layout.Plain(); got != tc.plain {
				t.Errorf("Plain = %v, want %v", got, tc.plain)
			}
			if got := c.Layout.ManifestFile("frontend-api"); got != tc.file {
				t.Errorf("ManifestFile = %q, want %q", got, tc.file)
			}
		})
	}
}

func TestLayoutManifestsErrors(t *testing.T) {
	const path = "layout:\n  path: argocd/rendered/{environment}/{region}/{clusterType}-manifests\n"
	for _, tc := range []struct{ name, manifests, want string }{
		{"a path", "  manifests: sub/app.yaml\n", `"sub/app.yaml" is not a file name`},
		{"not YAML", "  manifests: applicationset.json\n", "does not end in .yaml or .yml"},
		{"hidden", "  manifests: .app.yaml\n", "is hidden"},
		{"another placeholder", "  manifests: '{kind}.yaml'\n", "a placeholder other than {name}"},
		{"name twice", "  manifests: '{name}-{name}.yaml'\n", "names {name} twice"},
		{"a chart", "  manifests: Chart.yaml\n", "as a Helm chart"},
		{"empty", "  manifests: ''\n", "file name is empty"},
		{"a list", "  manifests: [a.yaml]\n", "layout.manifests: expected a string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readLayoutConfig(t, path+tc.manifests)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range []string{tc.want, "config/config.yaml:14:14"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%v\nwant it to contain %q", err, w)
				}
			}
		})
	}
}

// strata's root ApplicationSet reads a node's revision pin from the
// target's values.yaml, which plain manifests lack: the pin is refused at
// its line, the named revisions (written into the resources) are not.
func TestLayoutManifestsRevisionPin(t *testing.T) {
	const layout = "layout:\n  path: argocd/rendered/{environment}/{region}/{clusterType}-manifests\n  manifests: applicationset.yaml\n"
	cfg := strings.Replace(layoutConfig, "    - name: staging\n", "    - name: staging\n      revision: 0123456789abcdef0123456789abcdef01234567\n", 1)
	_, err := fleetConfig(t, cfg+layout)
	for _, w := range []string{"node staging pins the revision of its whole tree", "config/config.yaml:7:", "revisions: {charts: REV}"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error\n%v\nwant it to contain %q", err, w)
		}
	}
	if _, err := fleetConfig(t, cfg+layout+"roots: {kind: Application}\n"); err != nil {
		t.Errorf("with roots.kind Application (the pin in the root itself): %v", err)
	}
	named := strings.Replace(cfg, "      revision: 0123456789abcdef0123456789abcdef01234567\n", "      revisions: {charts: 0123456789abcdef0123456789abcdef01234567}\n", 1)
	if _, err := fleetConfig(t, "revisions:\n  charts: {}\n"+named+layout); err != nil {
		t.Errorf("a named revision: %v", err)
	}
}
