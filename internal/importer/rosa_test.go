package importer_test

import (
	"io/fs"
	"os"
	"path"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
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
	// strata render of the imported fleet writes each target where
	// render.py does, and its values file beside it with render.py's
	// values (as data: render.py's comments aside).
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
	dirs := map[string]string{}
	for _, tg := range res.Source.Targets {
		dirs[tg.ClusterType+"/"+tg.ID()] = tg.Dir
	}
	for _, out := range outs {
		want := dirs[out.Target.ID()]
		if out.Target.Dir() != want {
			t.Errorf("%s: rendered to %s, render.py writes %s", out.Target.ID(), out.Target.Dir(), want)
		}
		if len(out.Beside) != 1 {
			t.Fatalf("%s: %d files beside the target, want its values file", out.Target.ID(), len(out.Beside))
		}
		vfile := strings.TrimSuffix(want, "-manifests") + "-values.yaml"
		if out.Beside[0].Path != vfile {
			t.Errorf("%s: values file %s, render.py writes %s", out.Target.ID(), out.Beside[0].Path, vfile)
		}
		data, err := fs.ReadFile(fsys, vfile)
		if err != nil {
			t.Fatal(err)
		}
		var wantVals, gotVals map[string]any
		if err := sigsyaml.Unmarshal(data, &wantVals); err != nil {
			t.Fatal(err)
		}
		if err := sigsyaml.Unmarshal(out.Beside[0].Data, &gotVals); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(wantVals, gotVals); d != "" {
			t.Errorf("%s: the values file differs from render.py's (-render.py +strata):\n%s", vfile, d)
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
