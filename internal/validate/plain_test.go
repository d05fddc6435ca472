package validate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// With plain manifests (layout.manifests), a finding names the file that
// holds the resource and its field, not the chart's template and line.
func TestValidatePlainManifests(t *testing.T) {
	fsys := fleetFS()
	cfg := string(fsys["config/config.yaml"].Data) + "layout: {path: 'out/{environment}/{region}/{clusterType}', manifests: apps.yaml}\nroots: {kind: Application}\n"
	fsys["config/config.yaml"] = file(cfg)
	fsys["config/workload/podinfo/prod/override.yaml"] = file("applications:\n  podinfo:\n    source:\n      targetRevison: 6.7.2\n")
	rep, err := Check(Options{FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	want := []Finding{{Severity: Error, Check: CheckSchema, File: "out/prod/us-east1/workload/apps.yaml", Path: "spec.source.targetRevison",
		Message: `unknown field "targetRevison": did you mean "targetRevision"?`,
		Source:  "config/workload/podinfo/prod/override.yaml:4:22"}}
	if d := cmp.Diff(want, rep.Findings); d != "" {
		t.Errorf("findings (-want +got):\n%s", d)
	}
}
