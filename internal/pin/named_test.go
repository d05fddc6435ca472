package pin_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/pin"
)

// namedConfig declares named revisions and pins them in each form a node
// can be written in.
const namedConfig = `dimensions: [environments, regions]
repository: {url: https://git.example.com/platform, revision: main}
revisions:
  charts: {}
  addons: {label: addons_release}
sequence:
  environments:
    - name: integration
      regions: [us-east1, eu-west1]
    - name: staging
      revisions:
        charts: 826fa76   # tested
      regions:
        - us-east1
    - name: production
      revisions: {addons: v1}
      regions: [{name: us-east1}]
cluster_types: [hub, spoke]
`

func loadNamed(t *testing.T) *fleet.Fleet {
	t.Helper()
	fsys := fstest.MapFS{"config/config.yaml": {Data: []byte(namedConfig)}}
	for _, ct := range []string{"hub", "spoke"} {
		fsys["config/"+ct+"/defaults.yaml"] = &fstest.MapFile{Data: []byte("applications: {default: {project: default}}\n")}
		fsys["config/"+ct+"/argocd/values.yaml"] = &fstest.MapFile{Data: []byte("applications: {argocd: {destination: {namespace: argocd}}}\n")}
	}
	// The hub of production chooses its addons by label: a pin there changes the spoke only.
	fsys["config/clusters/hub-prod.yaml"] = &fstest.MapFile{Data: []byte("type: hub\ntarget: production/us-east1\nlabels: {addons_release: v0}\n")}
	f, err := fleet.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestPinNamedEditsInPlace(t *testing.T) {
	tests := []struct {
		name           string
		opts           pin.Options
		removed, added []string
		changes        []string // cluster type/target: from -> to
	}{
		{"a plain name in a flow list becomes a mapping",
			pin.Options{Node: "integration/eu-west1", Revision: "v2", Name: "charts"},
			[]string{"      regions: [us-east1, eu-west1]"},
			[]string{"      regions: [us-east1, {name: eu-west1, revisions: {charts: v2}}]"},
			[]string{"hub integration/eu-west1: main -> v2", "spoke integration/eu-west1: main -> v2"}},
		{"a block mapping's entry replaced, its comment kept",
			pin.Options{Node: "staging", Revision: "v3", Name: "charts"},
			[]string{"        charts: 826fa76   # tested"},
			[]string{"        charts: v3   # tested"},
			[]string{"hub staging/us-east1: 826fa76 -> v3", "spoke staging/us-east1: 826fa76 -> v3"}},
		{"a block mapping gets a new entry",
			pin.Options{Node: "staging", Revision: "v1", Name: "addons"},
			nil, []string{"        addons: v1"},
			[]string{"hub staging/us-east1: main -> v1", "spoke staging/us-east1: main -> v1"}},
		{"a flow mapping gets a new entry",
			pin.Options{Node: "production", Revision: "v5", Name: "charts"},
			[]string{"      revisions: {addons: v1}"},
			[]string{"      revisions: {addons: v1, charts: v5}"},
			[]string{"hub production/us-east1: main -> v5", "spoke production/us-east1: main -> v5"}},
		{"a label wins over the pin: only the spoke changes",
			pin.Options{Node: "production", Revision: "v2", Name: "addons"},
			[]string{"      revisions: {addons: v1}"},
			[]string{"      revisions: {addons: v2}"},
			[]string{"spoke production/us-east1: v1 -> v2"}},
		{"one cluster type",
			pin.Options{Node: "production", Revision: "v6", Name: "addons", ClusterType: "spoke"},
			[]string{"      revisions: {addons: v1}"},
			[]string{"      revisions: {addons: {hub: v1, spoke: v6}}"},
			[]string{"spoke production/us-east1: v1 -> v6"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := pin.Prepare(loadNamed(t), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			removed, added := changed(namedConfig, string(p.Content))
			if diff := cmp.Diff(tt.removed, removed); diff != "" {
				t.Errorf("removed lines (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.added, added); diff != "" {
				t.Errorf("added lines (-want +got):\n%s\n%s", diff, p.Content)
			}
			var changes []string
			for _, c := range p.Changes {
				changes = append(changes, c.ClusterType+" "+c.Target+": "+c.From+" -> "+c.To)
			}
			if diff := cmp.Diff(tt.changes, changes); diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPinNamedErrors(t *testing.T) {
	_, err := pin.Prepare(loadNamed(t), pin.Options{Node: "staging", Revision: "v1", Name: "chart"})
	if err == nil || !strings.Contains(err.Error(), `"chart"`) || !strings.Contains(err.Error(), "charts") {
		t.Errorf("Prepare = %v, want the unknown name with the choices", err)
	}
	p, err := pin.Prepare(loadNamed(t), pin.Options{Node: "staging", Revision: "826fa76", Name: "charts"})
	if err != nil || p.Changed {
		t.Errorf("Prepare = %+v, %v; want an unchanged plan", p, err)
	}
}
