package validate

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/render"
)

// With plain manifests (layout.manifests), a finding names the file that
// holds the resource, its line there and its field, not the chart's
// template: in one file of every resource, and in a file per resource.
func TestValidatePlainManifests(t *testing.T) {
	for _, tc := range []struct{ manifests, file string }{
		{"apps.yaml", "out/prod/us-east1/workload/apps.yaml"},
		{`"{name}.yaml"`, "out/prod/us-east1/workload/podinfo.yaml"},
	} {
		t.Run(tc.manifests, func(t *testing.T) {
			fsys := fleetFS()
			cfg := string(fsys["config/config.yaml"].Data) + "layout: {path: 'out/{environment}/{region}/{clusterType}', manifests: " + tc.manifests + "}\nroots: {kind: Application}\n"
			fsys["config/config.yaml"] = file(cfg)
			fsys["config/workload/podinfo/prod/override.yaml"] = file("applications:\n  podinfo:\n    source:\n      targetRevison: 6.7.2\n")
			rep, err := Check(Options{FS: fsys})
			if err != nil {
				t.Fatal(err)
			}
			want := []Finding{{Severity: Error, Check: CheckSchema, File: tc.file, Line: lineOf(t, fsys, tc.file, "targetRevison:"),
				Path:    "spec.source.targetRevison",
				Message: `unknown field "targetRevison": did you mean "targetRevision"?`,
				Source:  "config/workload/podinfo/prod/override.yaml:4:22"}}
			if d := cmp.Diff(want, rep.Findings); d != "" {
				t.Errorf("findings (-want +got):\n%s", d)
			}
		})
	}
}

// lineOf is the line of the rendered file path (as strata render writes
// it) that holds text, which must be on one line only.
func lineOf(t *testing.T, fsys fs.FS, path, text string) int {
	t.Helper()
	rr, err := render.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range rr.Targets() {
		out, err := rr.Render(target)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range out.Files {
			if f.Path != path {
				continue
			}
			lines := strings.Split(string(f.Data), "\n")
			var at []int
			for i, l := range lines {
				if strings.Contains(l, text) {
					at = append(at, i+1)
				}
			}
			if len(at) != 1 {
				t.Fatalf("%s holds %q on lines %v, want one", path, text, at)
			}
			return at[0]
		}
	}
	t.Fatalf("strata render writes no %s", path)
	return 0
}
