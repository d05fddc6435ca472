package web_test

import (
	"os"
	"strings"
	"testing"
)

// A target of the regional platform's layout (examples/seed-000-regional:
// plain manifests, layout.manifests, and a values file, layout.values):
// its page shows applicationset.yaml as it is and the values file beside.
func TestTargetPagePlainManifestsAndValuesFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../examples/seed-000-regional")); err != nil {
		t.Fatal(err)
	}
	_, ts, _ := serveDir(t, dir)
	code, body := get(t, ts, "/target/management-cluster/staging/eu-west-1")
	if code != 200 {
		t.Fatalf("GET the target page: %d\n%s", code, body)
	}
	for _, w := range []string{
		"applicationset.yaml", "revision: 826fa76d08fc2ce87c863196e52d5a4fa9259a82", "path: argocd/config/{{ .metadata.labels.cluster_type }}/*",
		"management-cluster-values.yaml", "domain: stg.eu-west-1.rosa.example.com",
	} {
		if !strings.Contains(body, w) {
			t.Errorf("the page lacks %q", w)
		}
	}
	if strings.Contains(body, "templates/") {
		t.Error("the page names templates/, which plain manifests do not have")
	}
}
