package fleet_test

import (
	"slices"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/fleet"
)

// LoadScope reads, for each cluster type of the scope, the level
// directories on the way to its nodes and under them; its Targets are
// those under the nodes, other cluster types are absent, and a broken file
// where it does not read is not its problem. TargetCount still counts every
// declared cluster type's targets.
func TestLoadScope(t *testing.T) {
	const pod = "config/workload/podinfo/"
	files := map[string]string{
		pod + "integration/override.yaml":          "applications: {podinfo: {source: {targetRevision: a}}}\n",
		pod + "integration/us-east1/override.yaml": "applications: {podinfo: {source: {targetRevision: b}}}\n",
		pod + "production/override.yaml":           "applications: {podinfo: {source: {targetRevision: c}}}\n",
		pod + "production/us-east1/override.yaml":  "applications: {podinfo: {source: {targetRevision: d}}}\n",
		pod + "production/eu-west1/notes.txt":      "a stray file: an error where it is read\n",
	}
	for _, tc := range []struct {
		name    string
		scope   fleet.Scope
		types   []string
		targets []string // of workload
		levels  []string // of workload's podinfo
	}{{
		name:    "a region reads the levels on its way only",
		scope:   fleet.Scope{"workload": {"production/us-east1"}},
		types:   []string{"workload"},
		targets: []string{"production/us-east1"},
		levels:  []string{"production", "production/us-east1"},
	}, {
		name:    "an environment reads the levels under it too",
		scope:   fleet.Scope{"workload": {"integration"}},
		types:   []string{"workload"},
		targets: []string{"integration/us-east1", "integration/eu-west1"},
		levels:  []string{"integration", "integration/us-east1"},
	}, {
		name:    "two nodes read both ways",
		scope:   fleet.Scope{"workload": {"integration/us-east1", "production/us-east1"}},
		types:   []string{"workload"},
		targets: []string{"integration/us-east1", "production/us-east1"},
		levels:  []string{"integration", "integration/us-east1", "production", "production/us-east1"},
	}, {
		name:    "another cluster type only reads none of workload's",
		scope:   fleet.Scope{"hub": {""}},
		types:   []string{"hub"},
		targets: nil,
	}, {
		name:  "a node that does not exist selects nothing",
		scope: fleet.Scope{"workload": {"staging"}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fleetFS(atConfig, nil)
			for p, data := range files {
				fsys[p] = &fstest.MapFile{Data: []byte(data)}
			}
			f, err := fleet.LoadScope(fsys, tc.scope)
			if err != nil {
				t.Fatal(err)
			}
			var types, targets, levels []string
			for _, ct := range f.ClusterTypes {
				types = append(types, ct.Name)
			}
			if wl := f.ClusterType("workload"); wl != nil {
				for _, n := range wl.Targets {
					targets = append(targets, n.ID())
				}
				for id := range wl.Component("podinfo").Levels {
					levels = append(levels, id)
				}
				slices.Sort(levels)
			}
			if diff := cmp.Diff(tc.types, types); diff != "" {
				t.Errorf("cluster types (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.targets, targets); diff != "" {
				t.Errorf("workload targets (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.levels, levels); diff != "" {
				t.Errorf("podinfo levels (-want +got):\n%s", diff)
			}
			if got := f.TargetCount(); got != 5 {
				t.Errorf("TargetCount = %d, want 5 (hub 1, workload 4)", got)
			}
		})
	}
	// The whole fleet reads the stray file.
	fsys := fleetFS(atConfig, nil)
	for p, data := range files {
		fsys[p] = &fstest.MapFile{Data: []byte(data)}
	}
	if _, err := fleet.Load(fsys); err == nil {
		t.Error("Load of the whole fleet succeeded despite production/eu-west1/notes.txt")
	}
}

// LoadScopeReusing takes the Config it is given while config.yaml holds
// the bytes it was parsed from, and parses config.yaml again otherwise.
func TestLoadScopeReusing(t *testing.T) {
	fsys := fleetFS(atConfig, nil)
	first, err := fleet.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	scope := fleet.Scope{"workload": {"integration"}}
	same, err := fleet.LoadScopeReusing(fsys, scope, first.Config)
	if err != nil {
		t.Fatal(err)
	}
	if same.Config != first.Config {
		t.Error("config.yaml unchanged: the Config given is not reused")
	}
	edited := fsys["config/config.yaml"]
	fsys["config/config.yaml"] = &fstest.MapFile{Data: append(append([]byte{}, edited.Data...), "# edited\n"...)}
	again, err := fleet.LoadScopeReusing(fsys, scope, first.Config)
	if err != nil {
		t.Fatal(err)
	}
	if again.Config == first.Config || !slices.Equal(again.Config.File.Data, fsys["config/config.yaml"].Data) {
		t.Error("config.yaml changed: the Config given is reused")
	}
}
