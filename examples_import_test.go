package strata_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/strata-fleet/strata/internal/importer"
)

// TestSeed000IsWhatImportWrites keeps examples/seed-000-regional exactly
// what `strata import rosa-shards argocd --into .` writes from its argocd/
// (the regional platform's shape): every file of config/ but the
// inventory byte for byte, and config.yaml as data but for what the import
// leaves to the team (repository:, clusters:).
func TestSeed000IsWhatImportWrites(t *testing.T) {
	const dir = "examples/seed-000-regional"
	fsys := os.DirFS(dir)
	format, err := importer.Lookup("rosa-shards")
	if err != nil {
		t.Fatal(err)
	}
	src, err := format.Read(fsys, importer.Options{Dir: "argocd"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := importer.Build("rosa-shards", src)
	if err != nil {
		t.Fatal(err)
	}
	if err := importer.Verify(res); err != nil {
		t.Fatal(err)
	}
	var have []string
	err = fs.WalkDir(fsys, "config", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Dir(p) != "config/clusters" {
			have = append(have, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for name := range res.Files {
		want = append(want, name)
	}
	slices.Sort(have)
	slices.Sort(want)
	if d := cmp.Diff(want, have); d != "" {
		t.Fatalf("%s/config/ holds other files than the import writes (-import +example):\n%s", dir, d)
	}
	for _, name := range want {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			t.Fatal(err)
		}
		if name != "config/config.yaml" {
			if d := cmp.Diff(string(res.Files[name]), string(data)); d != "" {
				t.Errorf("%s differs from what the import writes (-import +example):\n%s", name, d)
			}
			continue
		}
		var imported, example map[string]any
		if err := yaml.Unmarshal(res.Files[name], &imported); err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(data, &example); err != nil {
			t.Fatal(err)
		}
		delete(example, "repository")
		delete(example, "clusters")
		if d := cmp.Diff(imported, example); d != "" {
			t.Errorf("config.yaml differs from what the import writes, beyond repository: and clusters: (-import +example):\n%s", d)
		}
	}
}
