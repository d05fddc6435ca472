package validate

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// hubFS is a fleet of clusters dev-01 and prod-01 and a hub, each a target
// (dimensions environments and clusters), each with the Application podinfo;
// inventory adds config/clusters/.
func hubFS(inventory map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{
		"config/config.yaml": file(`
dimensions: [environments, clusters]
sequence:
  environments:
    - name: dev
      clusters: [dev-01]
    - name: prod
      clusters: [prod-01, hub]
cluster_types:
  - name: platform
`),
		"config/platform/defaults.yaml": file(`
applications:
  default:
    project: default
    destination:
      name: '{{ .Values.cluster.cluster }}'
`),
		"config/platform/podinfo/values.yaml": file(`
applications:
  podinfo:
    source:
      repoURL: https://stefanprodan.github.io/podinfo
      chart: podinfo
      targetRevision: 6.7.1
    destination:
      namespace: podinfo
`),
	}
	for name, data := range inventory {
		fsys["config/clusters/"+name+".yaml"] = file(data)
	}
	return fsys
}

// checkHub validates hubFS(inventory) with the files of edit written over
// it, and returns the findings.
func checkHub(t *testing.T, inventory, edit map[string]string) []Finding {
	t.Helper()
	fsys := hubFS(inventory)
	for name, data := range edit {
		fsys[name] = file(data)
	}
	rep, err := Check(Options{FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	return rep.Findings
}

func TestValidateCollisions(t *testing.T) {
	const (
		hub  = "name: hub\ntype: platform\ntarget: prod/hub\n"
		dev  = "name: dev-01\ntype: platform\ntarget: dev/dev-01\nserver: https://dev-01.example.com\nhub: hub\n"
		prod = "name: prod-01\ntype: platform\ntarget: prod/prod-01\nserver: https://prod-01.example.com\nhub: hub\n"
	)
	tests := []struct {
		name      string
		inventory map[string]string
		edit      map[string]string
		want      []Finding
	}{
		{
			name:      "spokes and their hub render the same name into the hub's Argo CD",
			inventory: map[string]string{"hub": hub, "dev-01": dev, "prod-01": prod},
			want: []Finding{{Severity: Error, Check: CheckCollision, File: "rendered/platform/dev/dev-01/templates/podinfo.yaml", Line: 4, Path: "metadata.name",
				Message: `Application "podinfo" lands in namespace argocd of hub's Argo CD from 3 clusters: ` +
					"dev-01 (target platform/dev/dev-01, rendered/platform/dev/dev-01/templates/podinfo.yaml), " +
					"hub (target platform/prod/hub, rendered/platform/prod/hub/templates/podinfo.yaml), " +
					"prod-01 (target platform/prod/prod-01, rendered/platform/prod/prod-01/templates/podinfo.yaml); " +
					`each overwrites the others there: name them apart (with the built-in chart: render.namePrefix in config/config.yaml, such as {{ .Values.cluster.cluster }}-)`}},
		},
		{
			name: "clusters that run their own Argo CD do not collide",
			inventory: map[string]string{"hub": hub, "dev-01": "name: dev-01\ntype: platform\ntarget: dev/dev-01\n",
				"prod-01": "name: prod-01\ntype: platform\ntarget: prod/prod-01\n"},
		},
		{
			name:      "the same name in different namespaces does not collide",
			inventory: map[string]string{"hub": hub, "dev-01": dev, "prod-01": prod},
			edit: map[string]string{
				"config/platform/podinfo/dev/dev-01/override.yaml":   "applications:\n  podinfo:\n    namespace: dev\n",
				"config/platform/podinfo/prod/prod-01/override.yaml": "applications:\n  podinfo:\n    namespace: prod\n",
			},
		},
		{
			name:      "no namespace is Argo CD's namespace",
			inventory: map[string]string{"hub": hub, "dev-01": dev, "prod-01": prod},
			edit: map[string]string{
				"config/platform/podinfo/dev/dev-01/override.yaml":   "applications:\n  podinfo:\n    namespace: argocd\n",
				"config/platform/podinfo/prod/prod-01/override.yaml": "applications:\n  podinfo:\n    namespace: prod\n",
			},
			want: []Finding{{Severity: Error, Check: CheckCollision, File: "rendered/platform/dev/dev-01/templates/podinfo.yaml", Line: 4, Path: "metadata.name",
				Message: `Application "podinfo" lands in namespace argocd of hub's Argo CD from 2 clusters: ` +
					"dev-01 (target platform/dev/dev-01, rendered/platform/dev/dev-01/templates/podinfo.yaml), " +
					"hub (target platform/prod/hub, rendered/platform/prod/hub/templates/podinfo.yaml); " +
					`each overwrites the others there: name them apart (with the built-in chart: render.namePrefix in config/config.yaml, such as {{ .Values.cluster.cluster }}-)`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, checkHub(t, tt.inventory, tt.edit), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

// The advice names a prefix that exists in this fleet and names the
// clusters apart: in a fleet of environments and regions, where the two
// spokes share a region, every dimension's key; {{ .Values.cluster.cluster }}-
// (a key only a fleet with a dimension clusters has) failed to render
// there. Applied, the advice renders and validate is clean.
func TestCollisionAdviceWorks(t *testing.T) {
	regions := func(fsys fstest.MapFS) {
		fsys["config/config.yaml"] = file(`
dimensions: [environments, regions]
sequence:
  environments:
    - name: dev
      regions: [us-east1]
    - name: prod
      regions: [us-east1, hub]
cluster_types:
  - name: platform
`)
		fsys["config/platform/defaults.yaml"] = file("applications:\n  default:\n    project: default\n")
	}
	inventory := map[string]string{
		"hub":     "name: hub\ntype: platform\ntarget: prod/hub\n",
		"dev-01":  "name: dev-01\ntype: platform\ntarget: dev/us-east1\nserver: https://dev-01.example.com\nhub: hub\n",
		"prod-01": "name: prod-01\ntype: platform\ntarget: prod/us-east1\nserver: https://prod-01.example.com\nhub: hub\n",
	}
	fsys := hubFS(inventory)
	regions(fsys)
	rep, err := Check(Options{FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	const advice = "{{ .Values.cluster.environment }}-{{ .Values.cluster.region }}-"
	if len(rep.Findings) == 0 || !strings.Contains(rep.Findings[0].Message, "such as "+advice+")") {
		t.Fatalf("findings %+v, want the advice %s", rep.Findings, advice)
	}
	fsys["config/config.yaml"] = file(string(fsys["config/config.yaml"].Data) + "render: {namePrefix: \"" + advice + "\"}\n")
	rep, err = Check(Options{FS: fsys})
	if err != nil {
		t.Fatalf("the advice applied: %v", err)
	}
	for _, fd := range rep.Findings {
		if fd.Severity == Error {
			t.Errorf("the advice applied, still: %+v", fd)
		}
	}
}
