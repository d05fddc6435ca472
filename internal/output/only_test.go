package output

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/fleet"
)

// A run restricted by Options.Only to some directories of rendered/
// renders, compares and switches only the targets under them, removes
// nothing outside their directories, and records the state of those it
// rendered only: what it did not consider stays as it was, and the next
// full run (here a check) still finds it stale. fleetV1 is rendered first;
// then config/ and rendered/ are changed as the case says.
func TestRunRestrictedToSomeTargets(t *testing.T) {
	const (
		prodOverride = "config/mc/cert-manager/prod/override.yaml"
		devOverride  = "config/mc/cert-manager/dev/override.yaml"
		devValues    = "rendered/mc/dev/us-east1/values.yaml"
	)
	prodChange := map[string]string{prodOverride: "applications:\n  cert-manager:\n    source: {targetRevision: v1.14.1}\n"}
	devChange := map[string]string{devOverride: "applications:\n  cert-manager:\n    source: {targetRevision: v1.13.0}\n"}
	prodStale := []string{
		"update rendered/mc/prod/eu-west1/templates/cert-manager.yaml", "update rendered/mc/prod/eu-west1/values.yaml",
		"update rendered/mc/prod/us-east1/templates/cert-manager.yaml", "update rendered/mc/prod/us-east1/values.yaml",
	}
	for _, tc := range []struct {
		name     string
		config   map[string]string // written over fleetV1 after the first render
		planted  map[string]string // written into rendered/ after it
		noOutput bool              // rendered/ removed after it
		only     []string
		// considered and rendered: the restricted run's Result; changed:
		// the targets whose files it changed.
		considered, rendered int
		changed              []string
		// stale: what a full check afterwards reports ("op path", "dir/").
		stale []string
	}{{
		name:    "the targets under a node render, a target elsewhere edited by hand stays stale",
		config:  prodChange,
		planted: map[string]string{devValues: "edited by hand\n"},
		only:    []string{"rendered/mc/prod"},
		// prod/us-east1 and prod/eu-west1; dev/us-east1 is never vouched for.
		considered: 2, rendered: 2,
		changed: []string{"mc/prod/eu-west1", "mc/prod/us-east1"},
		stale:   []string{"update " + devValues},
	}, {
		name:       "a target under a node whose inputs did not change does not render, one elsewhere that changed waits",
		config:     devChange,
		only:       []string{"rendered/mc/prod/us-east1"},
		considered: 1, rendered: 0,
		stale: []string{"update rendered/mc/dev/us-east1/templates/cert-manager.yaml", "update " + devValues},
	}, {
		name: "nothing outside the targets' directories is removed, a stray file inside one is",
		planted: map[string]string{
			"rendered/mc/prod/gone/Chart.yaml":                  "a target no more\n",
			"rendered/mc/README":                                "stray\n",
			"rendered/mc/prod/us-east1/templates/extra.yaml":    "stray\n",
			"rendered/mc/dev/us-east1/templates/elsewhere.yaml": "stray\n",
		},
		only:       []string{"rendered/mc/prod"},
		considered: 2, rendered: 1,
		changed: []string{"mc/prod/us-east1"},
		stale: []string{
			"delete rendered/mc/README", "delete rendered/mc/dev/us-east1/templates/elsewhere.yaml",
			"delete rendered/mc/prod/gone/Chart.yaml", "rendered/mc/prod/gone/",
		},
	}, {
		name:       "a directory selects the targets in it, not those whose names it starts",
		config:     prodChange,
		only:       []string{"rendered/mc/pro", "rendered/mc/prod/us-east"},
		considered: 0, rendered: 0,
		stale: prodStale,
	}, {
		name:       "an empty list selects no target",
		config:     prodChange,
		only:       []string{},
		considered: 0, rendered: 0,
		stale: prodStale,
	}, {
		name:       "without rendered/ every target renders: no partial rendered/ is created",
		config:     prodChange,
		noOutput:   true,
		only:       []string{"rendered/mc/prod"},
		considered: 3, rendered: 3,
		changed: []string{"mc/dev/us-east1", "mc/prod/eu-west1", "mc/prod/us-east1"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			dir, state := t.TempDir(), filepath.Join(t.TempDir(), "state")
			writeFiles(t, dir, fleetV1)
			if _, err := run(t, dir, state, nil); err != nil {
				t.Fatal(err)
			}
			writeFiles(t, dir, tc.config)
			writeFiles(t, dir, tc.planted)
			if tc.noOutput {
				os.RemoveAll(filepath.Join(dir, "rendered"))
			}
			res, err := Run(Options{Root: dir, FS: os.DirFS(dir), StatePath: state, Only: tc.only})
			if err != nil {
				t.Fatal(err)
			}
			if res.Targets != 3 || res.Considered != tc.considered || res.Rendered != tc.rendered {
				t.Errorf("targets %d, considered %d, rendered %d; want 3, %d, %d", res.Targets, res.Considered, res.Rendered, tc.considered, tc.rendered)
			}
			cfg, err := fleet.ReadConfig(os.DirFS(dir), nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.changed, res.Plan.Targets(cfg)); diff != "" {
				t.Errorf("targets changed (-want +got):\n%s", diff)
			}
			if _, err := os.Lstat(filepath.Join(dir, stagingDir)); !os.IsNotExist(err) {
				t.Errorf("the staging area is left: %v", err)
			}
			tree := readTree(t, dir, "rendered")
			for p, data := range tc.planted {
				if p != "rendered/mc/prod/us-east1/templates/extra.yaml" && tree[p] != data {
					t.Errorf("%s: %q, want it left as planted", p, tree[p])
				}
			}
			check, err := Run(Options{Root: dir, FS: os.DirFS(dir), StatePath: state, Check: true})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.stale, planLines(check.Plan)); diff != "" {
				t.Errorf("a full check afterwards (-want +got):\n%s", diff)
			}
		})
	}
}

// planLines is a plan as "op path" lines, then "dir/" lines.
func planLines(p *Plan) []string {
	var out []string
	for _, c := range p.Changes {
		out = append(out, string(c.Op)+" "+c.Path)
	}
	for _, d := range p.Dirs {
		out = append(out, d+"/")
	}
	return slices.Clip(out)
}
