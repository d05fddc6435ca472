package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCompare checks that a difference the report names passes, one it
// does not name fails, and null fields count as unset.
func TestCompare(t *testing.T) {
	dir := t.TempDir()
	app := "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: a}\nspec: {project: p%s}\n"
	write(t, dir+"/want/dev.yaml", strings.ReplaceAll(app, "%s", ", syncPolicy: {}")+"---\nkind: ConfigMap\nmetadata: {name: c}\ndata: {x: null, y: \"1\"}\n")
	write(t, dir+"/got/dev.yaml", strings.ReplaceAll(app, "%s", "")+"---\nkind: ConfigMap\nmetadata: {name: c}\ndata: {y: \"1\"}\n")
	write(t, dir+"/named.json", `{"findings": [{"object": "Application/a", "field": "spec.syncPolicy", "reason": "empty"}]}`)
	write(t, dir+"/other.json", `{"findings": [{"object": "Application/b", "reason": "x", "fault": true}]}`)

	var out bytes.Buffer
	if err := compare([]string{"-report", dir + "/named.json", dir + "/want", dir + "/got"}, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{
		"  different  dev.yaml Application/a: spec.syncPolicy: the source has {}, strata renders nothing [in the report]\n",
		"  equal      dev.yaml ConfigMap/c\n",
		"compared 2 objects: 1 equal, 1 different (0 differences not in the report); the report: 1 findings, 0 faults of the repository\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}

	out.Reset()
	err := compare([]string{"-report", dir + "/other.json", dir + "/want", dir + "/got"}, &out)
	if !errors.Is(err, errUnreported) || !strings.Contains(out.String(), "[NOT IN THE REPORT]") {
		t.Errorf("a difference the report does not name: err %v\n%s", err, out.String())
	}
}
