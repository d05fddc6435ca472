package importer_test

import (
	"errors"
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
