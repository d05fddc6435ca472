package hydrate

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
)

const repoURL = "https://github.com/example/fleet"

var repoFS = fstest.MapFS{
	"charts/web/Chart.yaml":                {Data: []byte("apiVersion: v2\nname: web\nversion: 0.1.0\n")},
	"charts/web/values.yaml":               {Data: []byte("replicas: 1\n")},
	"charts/web/templates/deployment.yaml": {Data: []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n  namespace: {{ .Release.Namespace }}\nspec:\n  replicas: {{ .Values.replicas }}\n")},
	"overlays/prod/kustomization.yaml":     {Data: []byte("resources: [cm.yaml]\nnamespace: prod\n")},
	"overlays/prod/cm.yaml":                {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  level: high\n")},
	"plain/a.yaml":                         {Data: []byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: b\n")},
	"plain/README.md":                      {Data: []byte("not a manifest")},
}

func keys(b *Build) []string {
	var out []string
	for _, o := range b.Objects {
		out = append(out, o.Key())
	}
	return out
}

// TestBuild: each kind of source builds to its objects; what cannot be
// built offline says why.
func TestBuild(t *testing.T) {
	cache := t.TempDir()
	remote := &chart.Chart{Metadata: &chart.Metadata{APIVersion: "v2", Name: "podinfo", Version: "6.8.0"},
		Values:    map[string]any{"replicas": 1},
		Templates: []*common.File{{Name: "templates/svc.yaml", Data: []byte("apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}\n")}}}
	if _, err := chartutil.Save(remote, cache); err != nil {
		t.Fatal(err)
	}
	b := &Builder{FS: repoFS, Repo: RepoKey(repoURL), ChartCache: cache}
	for _, tc := range []struct {
		name      string
		src       map[string]any
		tool      string
		objects   []string
		skip, err string
	}{
		{name: "a local Helm chart", src: map[string]any{"repoURL": repoURL + ".git", "path": "charts/web", "helm": map[string]any{"valuesObject": map[string]any{"replicas": int64(3)}}},
			tool: "helm", objects: []string{"Deployment web-ns/web"}},
		{name: "a kustomize overlay", src: map[string]any{"repoURL": repoURL, "path": "overlays/prod"},
			tool: "kustomize", objects: []string{"ConfigMap prod/settings"}},
		{name: "a directory", src: map[string]any{"repoURL": repoURL, "path": "plain"},
			tool: "directory", objects: []string{"Namespace a", "Namespace b"}},
		{name: "a cached remote chart", src: map[string]any{"repoURL": "https://stefanprodan.github.io/podinfo", "chart": "podinfo", "targetRevision": "6.8.0"},
			tool: "helm", objects: []string{"Service web"}},
		{name: "a remote chart not cached", src: map[string]any{"repoURL": "https://stefanprodan.github.io/podinfo", "chart": "podinfo", "targetRevision": "6.9.0"},
			skip: "the chart is not in Helm's cache and strata does not use the network (helm pull podinfo --repo https://stefanprodan.github.io/podinfo --version 6.9.0 -d " + cache + ")"},
		{name: "another repository", src: map[string]any{"repoURL": "https://github.com/example/other", "path": "x"},
			skip: "its repository is not this one (config.yaml repository.url): strata sees only this repository"},
		{name: "a templated path", src: map[string]any{"repoURL": repoURL, "path": "clusters/{{ .name }}"},
			skip: "its path is a template that Argo CD resolves per cluster"},
		{name: "a missing path", src: map[string]any{"repoURL": repoURL, "path": "nowhere"},
			err: "its path is not a directory of the repository"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := b.Build(tc.src, "web", "web-ns")
			if got.Tool != tc.tool || got.Skip != tc.skip || got.Err != tc.err {
				t.Fatalf("Build = tool %q, skip %q, err %q; want %q, %q, %q", got.Tool, got.Skip, got.Err, tc.tool, tc.skip, tc.err)
			}
			if diff := cmp.Diff(tc.objects, keys(got)); diff != "" {
				t.Errorf("objects (-want +got):\n%s", diff)
			}
		})
	}
	dep := b.Build(map[string]any{"repoURL": repoURL, "path": "charts/web", "helm": map[string]any{"valuesObject": map[string]any{"replicas": int64(3)}}}, "web", "web-ns")
	if !strings.Contains(string(dep.Objects[0].YAML), "replicas: 3") {
		t.Errorf("the release's values are not used:\n%s", dep.Objects[0].YAML)
	}
}
