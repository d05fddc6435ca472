package bootstrap_test

import (
	"strings"
	"testing"
	"testing/fstest"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/strata-fleet/strata/internal/bootstrap"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/render"
)

// projectFleet is hubFleet with projects: the hub type is in project
// platform (config.yaml), spoke-1 in tenant-a (its file), spoke-2 in
// spoke2Project ("" for none: default). The hub's Argo CD renders the
// AppProjects platform and tenant-a; selfProject is the project of the
// hub's self-management Application.
func projectFleet(t *testing.T, spoke2Project, selfProject string) (*fleet.Fleet, *render.Chart) {
	t.Helper()
	spoke2 := "type: workload\ntarget: prod/spoke-2\nhub: hub-1\nserver: https://spoke-2:6443\nexternalSecret: {store: vault, key: clusters/spoke-2}\n"
	if spoke2Project != "" {
		spoke2 += "project: " + spoke2Project + "\n"
	}
	fsys := fstest.MapFS{
		"config/config.yaml": {Data: []byte(`dimensions: [environments, clusters]
repository: {url: https://git.example.com/fleet.git, revision: main}
sequence:
  environments:
    - name: prod
      clusters: [hub-1, spoke-1, spoke-2]
cluster_types:
  - {name: hub, project: platform}
  - workload
`)},
		"config/hub/defaults.yaml": {Data: []byte("applications: {default: {project: platform}}\nappprojects: {default: {namespace: argocd}}\n")},
		"config/hub/argocd/values.yaml": {Data: []byte("applications: {argocd: {name: argocd, project: " + selfProject +
			", destination: {namespace: argocd}}}\n")},
		"config/hub/projects/values.yaml": {Data: []byte(`appprojects:
  platform: {sourceRepos: ["*"], destinations: [{server: "https://kubernetes.default.svc", namespace: "*"}]}
  tenant-a: {sourceRepos: [https://git.example.com/fleet.git], destinations: [{name: spoke-1, namespace: "*"}]}
`)},
		"config/workload/defaults.yaml":       {Data: []byte("applications: {default: {project: default}}\n")},
		"config/workload/podinfo/values.yaml": {Data: []byte("applications: {podinfo: {destination: {namespace: podinfo}}}\n")},
		"config/clusters/hub-1.yaml":          {Data: []byte("type: hub\ntarget: prod/hub-1\n")},
		"config/clusters/spoke-1.yaml":        {Data: []byte("type: workload\ntarget: prod/spoke-1\nhub: hub-1\nserver: https://spoke-1:6443\nproject: tenant-a\n")},
		"config/clusters/spoke-2.yaml":        {Data: []byte(spoke2)},
	}
	f, err := fleet.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	chart, err := render.LoadChart(fsys)
	if err != nil {
		t.Fatal(err)
	}
	return f, chart
}

// TestBuildProjects: a root takes its cluster's project, and bootstrap
// applies that AppProject, as the fleet renders it for the Argo CD that
// holds the root, before the root; default needs none.
func TestBuildProjects(t *testing.T) {
	f, chart := projectFleet(t, "", "default")
	cr := &bootstrap.Credentials{Config: bootstrap.ClusterConfig{BearerToken: "t0ken"}, Source: "test"}

	t.Run("a cluster running its own Argo CD: its type's project", func(t *testing.T) {
		b, err := bootstrap.Build(f, chart, "hub-1", bootstrap.Options{})
		if err != nil {
			t.Fatal(err)
		}
		// platform for its own root, tenant-a for spoke-1's (made by
		// root-workload here); the self-management Application stays in
		// default.
		want := []string{"Namespace/argocd", "Secret/hub-1", "AppProject/platform", "AppProject/tenant-a",
			"ApplicationSet/root", "Application/argocd", "ApplicationSet/root-workload"}
		if diff := cmp.Diff(want, kinds(b)); diff != "" {
			t.Errorf("objects (-want +got):\n%s", diff)
		}
		if p, _, _ := unstructured.NestedString(b.Objects[4].Object, "spec", "template", "spec", "project"); p != "platform" {
			t.Errorf("root project = %q, want platform", p)
		}
		if got := b.Objects[1].GetAnnotations()[fleet.ProjectAnnotation]; got != "platform" {
			t.Errorf("secret's %s = %q, want platform", fleet.ProjectAnnotation, got)
		}
		proj := b.Objects[2]
		repos, _, _ := unstructured.NestedStringSlice(proj.Object, "spec", "sourceRepos")
		if proj.GetNamespace() != "argocd" || !cmp.Equal(repos, []string{"*"}) {
			t.Errorf("AppProject platform = %v, want it as rendered, in argocd", proj.Object)
		}
	})

	t.Run("a self-management Application in the root's project: the AppProject once", func(t *testing.T) {
		f, chart := projectFleet(t, "", "platform")
		b, err := bootstrap.Build(f, chart, "hub-1", bootstrap.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"Namespace/argocd", "Secret/hub-1", "AppProject/platform", "AppProject/tenant-a",
			"ApplicationSet/root", "Application/argocd", "ApplicationSet/root-workload"}
		if diff := cmp.Diff(want, kinds(b)); diff != "" {
			t.Errorf("objects (-want +got):\n%s", diff)
		}
	})

	t.Run("a spoke: its own project, applied on the hub", func(t *testing.T) {
		b, err := bootstrap.Build(f, chart, "spoke-1", bootstrap.Options{Credentials: cr})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"Secret/spoke-1", "AppProject/tenant-a", "ApplicationSet/root-workload"}, kinds(b)); diff != "" {
			t.Errorf("objects (-want +got):\n%s", diff)
		}
		if got := b.Objects[0].GetAnnotations()[fleet.ProjectAnnotation]; got != "tenant-a" {
			t.Errorf("secret's %s = %q, want tenant-a", fleet.ProjectAnnotation, got)
		}
		dests, _, _ := unstructured.NestedSlice(b.Objects[1].Object, "spec", "destinations")
		if diff := cmp.Diff([]any{map[string]any{"name": "spoke-1", "namespace": "*"}}, dests); diff != "" {
			t.Errorf("AppProject tenant-a destinations (-want +got):\n%s", diff)
		}
	})

	t.Run("a spoke in default: no AppProject, the annotation says default", func(t *testing.T) {
		b, err := bootstrap.Build(f, chart, "spoke-2", bootstrap.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"ExternalSecret/spoke-2", "ApplicationSet/root-workload"}, kinds(b)); diff != "" {
			t.Errorf("objects (-want +got):\n%s", diff)
		}
		ann, _, _ := unstructured.NestedStringMap(b.Objects[0].Object, "spec", "target", "template", "metadata", "annotations")
		if ann[fleet.ProjectAnnotation] != "default" {
			t.Errorf("the ExternalSecret's template annotations = %v, want %s: default", ann, fleet.ProjectAnnotation)
		}
	})
}

// TestSpokeProjectTemplate runs the hub's root ApplicationSet's project
// expression as the ApplicationSet controller does (Go templates with
// sprig, missingkey=error) over cluster secrets: each spoke's root gets the
// project its secret carries, and a secret without one gets default.
func TestSpokeProjectTemplate(t *testing.T) {
	f, chart := projectFleet(t, "", "default")
	b, err := bootstrap.Build(f, chart, "spoke-2", bootstrap.Options{})
	if err != nil {
		t.Fatal(err)
	}
	expr, _, _ := unstructured.NestedString(b.Objects[1].Object, "spec", "template", "spec", "project")
	tmpl, err := template.New("project").Funcs(sprig.TxtFuncMap()).Option("missingkey=error").Parse(expr)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		annotations map[string]string
		want        string
	}{
		{map[string]string{fleet.ProjectAnnotation: "tenant-a", "git_repo": "x"}, "tenant-a"},
		{map[string]string{fleet.ProjectAnnotation: "default"}, "default"},
		{map[string]string{"git_repo": "x"}, "default"},
	} {
		var out strings.Builder
		params := map[string]any{"metadata": map[string]any{"annotations": tt.annotations, "labels": map[string]string{}}}
		if err := tmpl.Execute(&out, params); err != nil {
			t.Fatal(err)
		}
		if out.String() != tt.want {
			t.Errorf("project of a spoke annotated %v = %q, want %q", tt.annotations, out.String(), tt.want)
		}
	}
}

// TestBuildProjectErrors: a project that the Argo CD holding the root does
// not get from the fleet is an error naming the cluster, the project, where
// it is set and where it belongs.
func TestBuildProjectErrors(t *testing.T) {
	cr := &bootstrap.Credentials{Config: bootstrap.ClusterConfig{BearerToken: "t0ken"}, Source: "test"}
	tests := []struct {
		name, spoke2, self, cluster string
		opts                        bootstrap.Options
		want                        []string
	}{
		{"a spoke's project the hub does not render", "tenant-b", "default", "spoke-2", bootstrap.Options{}, []string{
			"the root of cluster spoke-2 is in project tenant-b, but the Argo CD of hub-1 has no AppProject tenant-b: hub-1's target prod/hub-1 renders none (no rendered/hub/prod/hub-1/templates/tenant-b.yaml)",
			"config/clusters/spoke-2.yaml:6:10",
			"define it in config/hub/ as an item of appprojects (appprojects: {tenant-b: {name: tenant-b,",
			"or set project: default"}},
		{"the hub checks its spokes' projects too", "tenant-b", "default", "hub-1", bootstrap.Options{}, []string{
			"the root of cluster spoke-2 (made by root-workload in the Argo CD of hub-1) is in project tenant-b",
			"config/clusters/spoke-2.yaml:6:10"}},
		{"a self-management Application in a project nobody renders", "", "ops", "hub-1", bootstrap.Options{}, []string{
			"the self-management Application argocd of cluster hub-1 is in project ops, but the Argo CD of hub-1 has no AppProject ops"}},
		{"a spoke is unaffected by the hub's own projects", "", "ops", "spoke-1", bootstrap.Options{Credentials: cr}, nil},
	}
	t.Run("under render.namePrefix, the hint says to name the item", func(t *testing.T) {
		f, chart := projectFleet(t, "", "default")
		f.Config.Render.NamePrefix = "{{ .Values.cluster.cluster }}-"
		_, err := bootstrap.Build(f, chart, "spoke-1", bootstrap.Options{Credentials: cr})
		if err == nil || !strings.Contains(err.Error(), "as an item of appprojects (with its name: tenant-a, or render.namePrefix names it otherwise)") {
			t.Errorf("Build = %v, want the hint about name:", err)
		}
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, chart := projectFleet(t, tt.spoke2, tt.self)
			_, err := bootstrap.Build(f, chart, tt.cluster, tt.opts)
			if tt.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatal("Build succeeded, want an error")
			}
			rest := err.Error()
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("error does not contain %q (in order):\n%s", w, err)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}
