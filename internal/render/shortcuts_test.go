package render

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/strata-fleet/strata/internal/testing/benchfleet"
)

// TestShortcutsOffGiveTheSameBytes renders every example fleet and a small
// bench fleet twice, the normal way and with every shortcut off
// (NoShortcuts): each file must be the same, byte for byte.
func TestShortcutsOffGiveTheSameBytes(t *testing.T) {
	forEachFleet(t, func(t *testing.T, fsys fs.FS) { compareShortcuts(t, fsys) })
}

// forEachFleet runs test, in parallel subtests, on every example fleet and
// on a small bench fleet.
func forEachFleet(t *testing.T, test func(t *testing.T, fsys fs.FS)) {
	dirs, err := filepath.Glob(filepath.Join("..", "..", "examples", "*", "config", "config.yaml"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no example fleets found (%v)", err)
	}
	for _, cfg := range dirs {
		dir := filepath.Dir(filepath.Dir(cfg))
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			test(t, os.DirFS(dir))
		})
	}
	t.Run("bench-fleet", func(t *testing.T) {
		t.Parallel()
		spec := benchfleet.DefaultSpec()
		spec.Sectors, spec.Regions = 2, 3
		dir := t.TempDir()
		if err := benchfleet.Write(dir, spec); err != nil {
			t.Fatal(err)
		}
		test(t, os.DirFS(dir))
	})
}

// compareShortcuts renders the fleet in fsys with and without shortcuts and
// fails on any difference. It returns the normal way's files by path.
func compareShortcuts(t *testing.T, fsys fs.FS) map[string][]byte {
	t.Helper()
	outs := map[bool]map[string][]byte{}
	for _, off := range []bool{false, true} {
		r, err := Load(fsys)
		if err != nil {
			t.Fatal(err)
		}
		r.NoShortcuts = off
		rendered, err := r.RenderAll(r.Targets(), nil)
		if err != nil {
			t.Fatalf("NoShortcuts=%v: %v", off, err)
		}
		files := map[string][]byte{}
		for _, o := range rendered {
			for _, f := range o.Files {
				files[f.Path] = f.Data
			}
		}
		outs[off] = files
	}
	if len(outs[false]) != len(outs[true]) {
		t.Errorf("%d files with shortcuts, %d without", len(outs[false]), len(outs[true]))
	}
	for path, want := range outs[true] {
		if got := outs[false][path]; !bytes.Equal(got, want) {
			t.Errorf("%s differs with shortcuts:\n%s\nwithout:\n%s", path, got, want)
		}
	}
	return outs[false]
}

// TestTemplatesCannotModifySharedValues renders a value that modifies the
// values through tpl (in an application's project) and one that does in pass
// 2: each target sees its own values, as with fresh values per render, and
// -race finds nothing.
func TestTemplatesCannotModifySharedValues(t *testing.T) {
	regions := []string{"us-east1", "eu-west1", "ap-south1", "us-west2"}
	seq := "sequence:\n  environments:\n  - name: prod\n    regions:\n"
	for _, r := range regions {
		seq += "    - name: " + r + "\n"
	}
	fsys := fstest.MapFS{
		"config/config.yaml":       {Data: []byte("dimensions: [environments, regions]\ncluster_types: [{name: hub}]\n" + seq)},
		"config/hub/defaults.yaml": {Data: []byte("applications:\n  default:\n    project: default\n")},
		"config/hub/app/values.yaml": {Data: []byte(`applications:
  app:
    project: '{{ $_ := set .Values.applications.app.destination "namespace" .Values.cluster.region }}default'
    source: {repoURL: https://example.com/app, chart: app, targetRevision: 1.0.0}
    destination: {name: in-cluster}
    info:
      - name: region
        value: '{{ $_ := set .Values.applications.app.source "chart" .Values.cluster.region }}{{ .Values.applications.app.source.chart }}'
`)},
	}
	files := compareShortcuts(t, fsys)
	for _, r := range regions {
		app := string(files["rendered/hub/prod/"+r+"/templates/app.yaml"])
		if !strings.Contains(app, "namespace: "+r+"\n") || !strings.Contains(app, "value: "+r+"\n") {
			t.Errorf("%s renders another region's values:\n%s", r, app)
		}
	}
}
