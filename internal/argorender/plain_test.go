package argorender_test

import (
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/argorender"
	"github.com/strata-fleet/strata/internal/render"
)

// Plain manifests (layout.manifests) are the objects Argo CD renders
// strata's chart to: read back (Read, then Render as a directory source)
// they are the chart's objects, field for field, in one file or in a file
// per resource; an ApplicationSet's own templates stay for its controller.
func TestPlainManifestsAreTheChartsObjects(t *testing.T) {
	fleetFiles := func(manifests string) fstest.MapFS {
		layout := "layout:\n  path: out/{environment}/{clusterType}\n"
		if manifests != "" {
			layout += "  manifests: '" + manifests + "'\n"
		}
		return fstest.MapFS{
			"config/config.yaml":       {Data: []byte("dimensions: [environments]\ncluster_types: [hub]\nsequence: {environments: [prod]}\n" + layout)},
			"config/hub/defaults.yaml": {Data: []byte("applications: {default: {project: default, destination: {name: in-cluster}}}\napplicationsets: {default: {namespace: argocd}}\n")},
			"config/hub/a/values.yaml": {Data: []byte(`applications:
  cert-manager:
    source: {repoURL: https://charts.jetstack.io, chart: cert-manager, targetRevision: '{{ .Values.cluster.environment }}-v1'}
    destination: {namespace: cert-manager}
    syncPolicy: {retry: {limit: 5}}
applicationsets:
  platform:
    goTemplate: true
    generators: [{clusters: {}}]
    template:
      metadata: {name: '{{ argocd ".name" }}-platform'}
      spec:
        project: default
        destination: {server: '{{ argocd ".server" }}', namespace: platform}
        source: {repoURL: https://example.com/platform, path: charts/platform, targetRevision: main}
`)},
		}
	}
	objects := func(fsys fstest.MapFS) (map[string]any, []string) {
		t.Helper()
		r, err := render.Load(fsys)
		if err != nil {
			t.Fatal(err)
		}
		out, err := r.Render(r.Targets()[0])
		if err != nil {
			t.Fatal(err)
		}
		var files []string
		disk := fstest.MapFS{}
		for _, f := range out.Files {
			files = append(files, f.Path)
			disk[f.Path] = &fstest.MapFile{Data: f.Data}
		}
		read, err := argorender.Read(disk, out.Target)
		if err != nil {
			t.Fatal(err)
		}
		objs, err := argorender.Render(read, nil)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]any{}
		for name, o := range objs {
			m[name] = o.Object
		}
		return m, files
	}
	want, _ := objects(fleetFiles(""))
	if len(want) != 2 {
		t.Fatalf("the chart renders %d objects, want 2", len(want))
	}
	for manifests, files := range map[string][]string{
		"apps.yaml":   {"out/prod/hub/apps.yaml"},
		"{name}.yaml": {"out/prod/hub/cert-manager.yaml", "out/prod/hub/platform.yaml"},
	} {
		got, gotFiles := objects(fleetFiles(manifests))
		if d := cmp.Diff(files, gotFiles); d != "" {
			t.Errorf("manifests %s: files (-want +got):\n%s", manifests, d)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("manifests %s: objects other than the chart's (-chart +plain):\n%s", manifests, d)
		}
	}
	spec := want["platform"].(map[string]any)["spec"].(map[string]any)
	if name := spec["template"].(map[string]any)["metadata"].(map[string]any)["name"]; name != "{{ .name }}-platform" {
		t.Errorf("the ApplicationSet's template name = %v, want its controller's template", name)
	}
}
