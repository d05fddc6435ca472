package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// FakeArgoCDChart writes a chart named argo-cd (version 9.1.0) that installs
// Argo CD's real CRDs (from the argo-cd module) and a ConfigMap argocd-cm,
// standing in for the argo-helm chart, which needs the network. It returns
// the chart's directory.
func FakeArgoCDChart(t testing.TB) string {
	t.Helper()
	crds, err := ArgoCDCRDDir()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "argo-cd")
	files := map[string]string{
		"Chart.yaml":               "apiVersion: v2\nname: argo-cd\nversion: 9.1.0\nappVersion: " + ArgoCDVersion + "\n",
		"values.yaml":              "configs: {cm: {url: https://argocd.example.com}}\n",
		"templates/argocd-cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cm\n  labels:\n    app.kubernetes.io/part-of: argocd\ndata:\n  url: {{ .Values.configs.cm.url }}\n",
	}
	for _, name := range ArgoCDCRDFiles {
		data, err := os.ReadFile(filepath.Join(crds, name))
		if err != nil {
			t.Fatal(err)
		}
		files["crds/"+name] = string(data)
	}
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
