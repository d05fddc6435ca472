package pin_test

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/pin"
)

const config = `# The regional platform.
dimensions: [environments, sectors, regions]
repository: {url: https://git.example.com/platform.git, revision: main}
sequence:
  environments:
    - name: integration   # follows main
      sectors:
        - name: int-sector-1
          regions: [us-east1, eu-west1]
    - name: staging
      revision: 826fa76d08fc2ce87c863196e52d5a4fa9259a82  # tested commit
      sectors:
        - {name: stage-sector-1, regions: [us-east1]}
    - name: production
      promotion: manual
      revision:
        management-cluster: 7f8a9b2c15e4d3c6f9a8b7e6d5c4b3a2f1e0d9c8
        regional-cluster: 7f8a9b2c15e4d3c6f9a8b7e6d5c4b3a2f1e0d9c8
      sectors:
        - name: prod-sector-1
          regions:
            - us-east1
cluster_types: [management-cluster, regional-cluster]
`

func load(t *testing.T) *fleet.Fleet {
	t.Helper()
	fsys := fstest.MapFS{"config/config.yaml": {Data: []byte(config)}}
	for _, ct := range []string{"management-cluster", "regional-cluster"} {
		fsys["config/"+ct+"/defaults.yaml"] = &fstest.MapFile{Data: []byte("applications: {default: {project: default}}\n")}
		fsys["config/"+ct+"/argocd/values.yaml"] = &fstest.MapFile{Data: []byte("applications: {argocd: {destination: {namespace: argocd}}}\n")}
	}
	fsys["config/clusters/mc-use1-1.yaml"] = &fstest.MapFile{Data: []byte("type: management-cluster\ntarget: production/prod-sector-1/us-east1\n")}
	fsys["config/clusters/rc-use1.yaml"] = &fstest.MapFile{Data: []byte("type: regional-cluster\ntarget: production/prod-sector-1/us-east1\n")}
	fsys["config/clusters/mc-int-1.yaml"] = &fstest.MapFile{Data: []byte("type: management-cluster\ntarget: integration/int-sector-1/us-east1\n")}
	f, err := fleet.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// changed returns the lines of b that are not in a, and those of a not in b.
func changed(a, b string) (removed, added []string) {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	in := func(l string, ls []string) bool {
		for _, x := range ls {
			if x == l {
				return true
			}
		}
		return false
	}
	for _, l := range al {
		if !in(l, bl) {
			removed = append(removed, l)
		}
	}
	for _, l := range bl {
		if !in(l, al) {
			added = append(added, l)
		}
	}
	return removed, added
}

func TestPinEditsInPlace(t *testing.T) {
	tests := []struct {
		name           string
		opts           pin.Options
		removed, added []string
		changes        int
		clusters       []string
	}{
		{"a plain name in a flow list becomes a mapping",
			pin.Options{Node: "integration/int-sector-1/eu-west1", Revision: "v1.2.0"},
			[]string{"          regions: [us-east1, eu-west1]"},
			[]string{"          regions: [us-east1, {name: eu-west1, revision: v1.2.0}]"}, 2, nil},
		{"a line is added after the name, comments kept",
			pin.Options{Node: "integration", Revision: "0123456"},
			nil, []string{"      revision: '0123456'"}, 4, []string{"mc-int-1"}},
		{"a pin replaced in its line keeps its comment",
			pin.Options{Node: "staging", Revision: "release/2026-02"},
			[]string{"      revision: 826fa76d08fc2ce87c863196e52d5a4fa9259a82  # tested commit"},
			[]string{"      revision: release/2026-02  # tested commit"}, 2, nil},
		{"a flow mapping gets the pin after its name",
			pin.Options{Node: "staging/stage-sector-1", Revision: "v2"},
			[]string{"        - {name: stage-sector-1, regions: [us-east1]}"},
			[]string{"        - {name: stage-sector-1, revision: v2, regions: [us-east1]}"}, 2, nil},
		{"one cluster type of a pin for all becomes a mapping",
			pin.Options{Node: "staging", Revision: "v3", ClusterType: "regional-cluster", Approve: true},
			[]string{"      revision: 826fa76d08fc2ce87c863196e52d5a4fa9259a82  # tested commit"},
			[]string{"      revision: {management-cluster: 826fa76d08fc2ce87c863196e52d5a4fa9259a82, regional-cluster: v3}  # tested commit"}, 1, nil},
		{"one cluster type of a pin by type",
			pin.Options{Node: "production", Revision: "abc1234", ClusterType: "regional-cluster", Approve: true},
			[]string{"        regional-cluster: 7f8a9b2c15e4d3c6f9a8b7e6d5c4b3a2f1e0d9c8"},
			[]string{"        regional-cluster: abc1234"}, 1, []string{"rc-use1"}},
		{"a pin by type becomes one for all",
			pin.Options{Node: "production", Revision: "abc1234", Approve: true},
			[]string{"      revision:", "        management-cluster: 7f8a9b2c15e4d3c6f9a8b7e6d5c4b3a2f1e0d9c8", "        regional-cluster: 7f8a9b2c15e4d3c6f9a8b7e6d5c4b3a2f1e0d9c8"},
			[]string{"      revision: abc1234"}, 2, []string{"mc-use1-1", "rc-use1"}},
		{"a leaf under a gate, block item",
			pin.Options{Node: "production/prod-sector-1/us-east1", Revision: "v9", ClusterType: "management-cluster", Approve: true},
			[]string{"            - us-east1"},
			[]string{"            - {name: us-east1, revision: {management-cluster: v9}}"}, 1, []string{"mc-use1-1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := load(t)
			p, err := pin.Prepare(f, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !p.Changed {
				t.Fatal("plan changes nothing")
			}
			removed, added := changed(config, string(p.Content))
			if diff := cmp.Diff(tt.removed, removed); diff != "" {
				t.Errorf("removed lines (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.added, added); diff != "" {
				t.Errorf("added lines (-want +got):\n%s\n%s", diff, p.Content)
			}
			if len(p.Changes) != tt.changes {
				t.Errorf("changes = %+v, want %d", p.Changes, tt.changes)
			}
			if diff := cmp.Diff(tt.clusters, p.Clusters, cmpEmpty); diff != "" {
				t.Errorf("clusters (-want +got):\n%s", diff)
			}
		})
	}
}

var cmpEmpty = cmp.Comparer(func(a, b []string) bool {
	return len(a) == len(b) && strings.Join(a, ",") == strings.Join(b, ",")
})

func TestPinGates(t *testing.T) {
	f := load(t)
	opts := pin.Options{Node: "production/prod-sector-1", Revision: "v2", Command: "strata pin production/prod-sector-1 v2"}
	p, err := pin.Prepare(f, opts)
	if err != nil {
		t.Fatal(err)
	}
	err = pin.Gate(p, opts)
	var ge *pin.GateError
	if !errors.As(err, &ge) {
		t.Fatalf("Prepare = %v, want a *GateError", err)
	}
	if want := `the pin changes targets behind the manual gate "production"; approve it with: strata pin production/prod-sector-1 v2 --approve`; err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
	opts.Approve = true
	if err := pin.Gate(p, opts); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"production"}, p.Gates); diff != "" {
		t.Errorf("gates (-want +got):\n%s", diff)
	}
	// Pinning integration passes no gate.
	opts = pin.Options{Node: "integration", Revision: "v2"}
	if p, err := pin.Prepare(f, opts); err != nil || pin.Gate(p, opts) != nil {
		t.Errorf("pinning integration: %v, %v", err, pin.Gate(p, opts))
	}
}

func TestPinNoChange(t *testing.T) {
	p, err := pin.Prepare(load(t), pin.Options{Node: "staging", Revision: "826fa76d08fc2ce87c863196e52d5a4fa9259a82"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Changed || p.Content != nil || len(p.Changes) != 0 {
		t.Errorf("plan = %+v, want no change", p)
	}
}

func TestPinErrors(t *testing.T) {
	tests := []struct {
		name string
		opts pin.Options
		want string
	}{
		{"a malformed revision", pin.Options{Node: "staging", Revision: "826fa76d08fc2ce87c863196e52d5a4fa9259a8z"}, "not a hexadecimal digit"},
		{"an unknown node", pin.Options{Node: "stagin", Revision: "v1"}, `unknown node "stagin" (nearest: staging, integration, production`},
		{"an unknown cluster type", pin.Options{Node: "staging", Revision: "v1", ClusterType: "mc"}, `--cluster-type: unknown cluster type "mc" (one of: regional-cluster, management-cluster)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := pin.Prepare(load(t), tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Prepare = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// placedConfig places the cluster type edge at two of the four targets.
const placedConfig = `dimensions: [environments, regions]
repository: {url: https://git.example.com/platform.git, revision: main}
sequence:
  environments:
    - name: dev
      regions: [us-east1, eu-west1]
    - name: prod
      regions: [us-east1, eu-west1]
cluster_types:
  - name: mc
  - name: edge
    at: [dev/eu-west1, prod/us-east1]
`

func loadPlaced(t *testing.T) *fleet.Fleet {
	t.Helper()
	fsys := fstest.MapFS{"config/config.yaml": {Data: []byte(placedConfig)}}
	for _, ct := range []string{"mc", "edge"} {
		fsys["config/"+ct+"/defaults.yaml"] = &fstest.MapFile{Data: []byte("applications: {default: {project: default}}\n")}
		fsys["config/"+ct+"/argocd/values.yaml"] = &fstest.MapFile{Data: []byte("applications: {argocd: {destination: {namespace: argocd}}}\n")}
	}
	f, err := fleet.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// A pin plans changes for the targets render makes: a cluster type only
// where config.yaml's at: places it.
func TestPinPlansPlacedTargetsOnly(t *testing.T) {
	tests := []struct {
		name    string
		opts    pin.Options
		changes []string // type target
	}{
		{"every cluster type of an environment", pin.Options{Node: "prod", Revision: "v2"},
			[]string{"mc prod/us-east1", "mc prod/eu-west1", "edge prod/us-east1"}},
		{"every cluster type of a region without edge", pin.Options{Node: "prod/eu-west1", Revision: "v2"},
			[]string{"mc prod/eu-west1"}},
		{"the placed cluster type", pin.Options{Node: "dev", Revision: "v2", ClusterType: "edge"},
			[]string{"edge dev/eu-west1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := loadPlaced(t)
			p, err := pin.Prepare(f, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range p.Changes {
				got = append(got, c.ClusterType+" "+c.Target)
				ct := f.ClusterType(c.ClusterType)
				if !ct.ExistsAt(f.Config.Find(strings.Split(c.Target, "/"))) {
					t.Errorf("change for %s at %s, where it has no target", c.ClusterType, c.Target)
				}
			}
			if diff := cmp.Diff(tt.changes, got); diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPinRefusesATypeNotPlaced(t *testing.T) {
	_, err := pin.Prepare(loadPlaced(t), pin.Options{Node: "prod/eu-west1", Revision: "v2", ClusterType: "edge"})
	want := `cluster type "edge" is not placed at prod/eu-west1: it has no target there (config.yaml's at: places it at dev/eu-west1, prod/us-east1)`
	if err == nil || err.Error() != want {
		t.Errorf("Prepare = %v, want %q", err, want)
	}
}
