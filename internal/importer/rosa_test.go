package importer_test

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/strata-fleet/strata/internal/importer"
	"github.com/strata-fleet/strata/internal/render"
	"github.com/strata-fleet/strata/internal/testing/goldenfile"
)

// TestRosaShards imports a repository shaped as
// openshift-online/rosa-regional-platform's argocd/: shards in
// config.yaml, cluster types found by directory, render.py's output
// committed under rendered/. Each target's objects must be the
// ApplicationSet render.py wrote there (the fixture, derived by reading
// the script: a config_revision pins the git generator and the chart
// source), and strata render must give them back (importFleet), at
// render.py's paths, with render.py's values files beside them. The
// fixture's rendered/ is what render.py writes (run on this fixture's
// config.yaml and config/).
func TestRosaShards(t *testing.T) {
	fsys := os.DirFS("testdata/rosa-shards/regional")
	res := importFleet(t, "rosa-shards", fsys, importer.Options{Dir: "argocd"})
	goldenfile.Check(t, "testdata/rosa-shards/regional.golden", golden(res), *update)
	if n := len(res.Source.Targets); n != 6 {
		t.Fatalf("%d targets, want 6 (3 shards x 2 cluster types)", n)
	}
	for _, tg := range res.Source.Targets {
		data, err := fs.ReadFile(fsys, path.Join(tg.Dir, "applicationset.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		var want map[string]any
		if err := sigsyaml.Unmarshal(data, &want); err != nil {
			t.Fatal(err)
		}
		out, err := yaml.Marshal(tg.Objects[0].Doc)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if err := sigsyaml.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: the ApplicationSet differs from render.py's (-render.py +import):\n%s", tg.Label(), d)
		}
	}
	// The differential test: strata render of the imported fleet writes
	// render.py's files, the same paths under argocd/rendered/, each with
	// the same objects (render.py's header comment and YAML style aside).
	m := fstest.MapFS{}
	for name, data := range res.Files {
		m[name] = &fstest.MapFile{Data: data}
	}
	r, err := render.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := r.RenderAll(r.Targets(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]byte{}
	for _, out := range outs {
		for _, f := range append(out.Files, out.Beside...) {
			got[f.Path] = f.Data
		}
	}
	want := map[string][]byte{}
	err = fs.WalkDir(fsys, "argocd/rendered", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		want[p], err = fs.ReadFile(fsys, p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(slices.Sorted(maps.Keys(want)), slices.Sorted(maps.Keys(got))); d != "" {
		t.Fatalf("strata render writes other files than render.py (-render.py +strata):\n%s", d)
	}
	for p := range want {
		if d := cmp.Diff(objectsOf(t, p, want[p]), objectsOf(t, p, got[p])); d != "" {
			t.Errorf("%s: other objects than render.py's (-render.py +strata):\n%s", p, d)
		}
	}
	var typo bool
	for _, f := range res.Findings {
		typo = typo || f.Fault && f.Field == "values.managment-cluster" && f.At == "argocd/config.yaml:14"
	}
	if !typo {
		t.Errorf("no finding for the misspelt cluster type in values:\n%s", golden(&importer.Result{Findings: res.Findings}))
	}
}

func TestRosaShardsErrors(t *testing.T) {
	base, err := os.ReadFile("testdata/rosa-shards/regional/argocd/config/applicationset/base-applicationset.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, config, want string }{
		{"no shards", "shards: []\n", "shards: no shards (a list of environment, region, values)\n    argocd/config.yaml:1:1"},
		{"no region", "shards:\n  - environment: dev\n", "shards.0: a shard needs an environment and a region\n    argocd/config.yaml:2:5"},
		{"twice", "shards:\n  - {environment: dev, region: r1}\n  - {environment: dev, region: r1}\n",
			"shards.1: a second shard for r1 in dev (render.py refuses it too)\n    argocd/config.yaml:3:5\n    argocd/config.yaml:2:0"},
		{"bad revision", "shards:\n  - environment: dev\n    region: r1\n    config_revision:\n      a-cluster: main\n",
			"shards.0.config_revision.a-cluster: \"main\" is not a commit hash (7 to 40 hexadecimal digits; render.py refuses it too)\n    argocd/config.yaml:5:18"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := mapFS(map[string]string{
				"argocd/config.yaml": tt.config,
				"argocd/config/applicationset/base-applicationset.yaml": string(base),
				"argocd/config/a-cluster/app/Chart.yaml":                "name: app\n",
			})
			f, _ := importer.Lookup("rosa-shards")
			_, err := f.Read(m, importer.Options{Dir: "argocd"})
			if err == nil || strings.TrimSpace(err.Error()) != tt.want {
				t.Errorf("error\n%v\nwant\n%s", err, tt.want)
			}
		})
	}
}

// objectsOf decodes the YAML documents of file p, as Argo CD reads a
// directory source's files (and a $values file: one document).
func objectsOf(t *testing.T, p string, data []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	d := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var m map[string]any
		if err := d.Decode(&m); errors.Is(err, io.EOF) {
			return out
		} else if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out = append(out, m)
	}
}

// The shards' values go where all targets under a node share them, and
// nothing stands for a key whose contents differ: no empty mapping but
// those the shards hold themselves.
func TestRosaShardValuesWithoutEmptyMappings(t *testing.T) {
	base, err := os.ReadFile("testdata/rosa-shards/regional/argocd/config/applicationset/base-applicationset.yaml")
	if err != nil {
		t.Fatal(err)
	}
	shard := func(env, region, bucket string) string {
		return "  - environment: " + env + "\n    region: " + region + "\n    values:\n      a-cluster:\n        hypershift: {bucket: {name: " + bucket + "}, dns: {}}\n"
	}
	m := mapFS(map[string]string{
		"argocd/config.yaml": "shards:\n" + shard("int", "r1", "b1") + shard("int", "r2", "b2") + shard("stg", "r1", "b3"),
		"argocd/config/applicationset/base-applicationset.yaml": string(base),
		"argocd/config/a-cluster/app/Chart.yaml":                "name: app\n",
	})
	res := importFleet(t, "rosa-shards", m, importer.Options{Dir: "argocd"})
	want := map[string]string{
		"config/a-cluster/shard-values/values.yaml":          "values:\n  hypershift:\n    dns: {}\n",
		"config/a-cluster/shard-values/int/r1/override.yaml": "values:\n  hypershift:\n    bucket:\n      name: b1\n",
		"config/a-cluster/shard-values/int/r2/override.yaml": "values:\n  hypershift:\n    bucket:\n      name: b2\n",
		"config/a-cluster/shard-values/stg/override.yaml":    "values:\n  hypershift:\n    bucket:\n      name: b3\n",
	}
	got := map[string]string{}
	for name, data := range res.Files {
		if strings.Contains(name, "/shard-values/") {
			got[name] = string(data)
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("shard-values (-want +got):\n%s", d)
	}
}
