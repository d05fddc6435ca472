package importer_test

import (
	"errors"
	"os"
	"testing"

	"github.com/strata-fleet/strata/internal/importer"
)

// FuzzApplications feeds a manifest file of any content to the
// applications format. Reading and building may refuse it (with an
// error), but never panic; and a fleet that builds must render back the
// source's objects: Verify's ErrMismatch is a bug of the import.
func FuzzApplications(f *testing.F) {
	for _, s := range []string{
		"apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: a, namespace: argocd}\nspec:\n  project: default\n  destination: {server: https://kubernetes.default.svc}\n  source: {repoURL: https://x, path: '{{name}}', targetRevision: HEAD}\n",
		"apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: s}\nspec:\n  goTemplate: true\n  generators: [{list: {elements: [{n: x}]}}]\n  template:\n    metadata: {name: '{{ .n }}'}\n    spec: {project: p, destination: {name: in-cluster}}\n",
		"apiVersion: argoproj.io/v1alpha1\nkind: AppProject\nmetadata: {name: p, labels: {a: b}}\nspec: {sourceRepos: ['*']}\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: v}\n",
		"a: &x {b: 1}\nc: *x\n",
		"kind: [\n",
	} {
		f.Add(s)
	}
	format, err := importer.Lookup("applications")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, manifest string) {
		src, err := format.Read(mapFS(map[string]string{"argocd/dev/app.yaml": manifest, "argocd/prod/app.yaml": manifest + "\n"}), importer.Options{Dir: "argocd"})
		if err != nil {
			return
		}
		res, err := importer.Build("applications", src)
		if err != nil {
			return
		}
		if err := importer.Verify(res); errors.Is(err, importer.ErrMismatch) {
			t.Errorf("the import of\n%s\ndoes not render back: %v", manifest, err)
		}
	})
}

// FuzzEKSFleet feeds an ApplicationSet file of any content to the
// eks-fleet format, beside the test fleet's releases and members. The
// evaluation may refuse it, but never panic; and what builds must render
// back the Applications it evaluated, the templates Generalize writes
// included.
func FuzzEKSFleet(f *testing.F) {
	files := map[string]string{}
	for _, name := range []string{
		"fleet/bootstrap/versions/applicationSets.yaml",
		"fleet/fleet-bootstrap/fleet-members/hub-cluster-np/hub-cluster-np.yaml",
		"fleet/fleet-bootstrap/fleet-members/hub-cluster-np/spoke-dev-workload1.yaml",
		"fleet/fleet-bootstrap/fleet-members/hub-cluster-np/spoke-live-workload1.yaml",
	} {
		data, err := os.ReadFile("testdata/eks-fleet/fleet/" + name)
		if err != nil {
			f.Fatal(err)
		}
		files[name] = string(data)
	}
	addons, err := os.ReadFile("testdata/eks-fleet/fleet/fleet/bootstrap/hub-cluster-np/addons.yaml")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		string(addons),
		"apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: s, namespace: argocd}\nspec:\n  goTemplate: true\n  generators: [{clusters: {}}]\n  template:\n    metadata: {name: 'x-{{ .name }}'}\n    spec: {project: default, destination: {name: '{{ .name }}'}, source: {repoURL: '{{ .metadata.annotations.aws_region }}', targetRevision: main, path: '{{ .metadata.labels.tenant }}/{{`{{x}}`}}'}}\n",
		"apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: s}\nspec:\n  goTemplate: true\n  generators: [{matrix: {generators: [{clusters: {values: {a: '{{ .name }}'}}}, {list: {elements: [{b: c}]}}]}}]\n  templatePatch: 'spec: {source: {path: {{ .values.a }}}}'\n  template:\n    metadata: {name: '{{ .b }}-{{ .name }}'}\n    spec: {project: default, destination: {name: in-cluster}}\n",
	} {
		f.Add(s)
	}
	format, err := importer.Lookup("eks-fleet")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, appset string) {
		m := map[string]string{"fleet/bootstrap/hub-cluster-np/set.yaml": appset}
		for k, v := range files {
			m[k] = v
		}
		src, err := format.Read(mapFS(m), importer.Options{Dir: "."})
		if err != nil {
			return
		}
		res, err := importer.Build("eks-fleet", src)
		if err != nil {
			return
		}
		if err := importer.Verify(res); errors.Is(err, importer.ErrMismatch) {
			t.Errorf("the import of\n%s\ndoes not render back: %v", appset, err)
		}
	})
}
