package promote

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Reach names the nodes under which a plan's files change what targets
// render: the level directory of each patch copy written or removed, the
// whole cluster type for values.yaml, nothing it cannot tell.
func TestReach(t *testing.T) {
	const dir = "config/mc/cert-manager/"
	for _, tc := range []struct {
		name  string
		paths []string
		want  []string
		ok    bool
	}{
		{"a copy to the next region", []string{dir + "int/s1/eu/patch-001.yaml"}, []string{"int/s1/eu"}, true},
		{"a copy and the coalescing of the copies under its sector", []string{
			dir + "int/s1/patch-001.yaml", dir + "int/s1/us/patch-001.yaml", dir + "int/s1/eu/patch-001.yaml",
		}, []string{"int/s1", "int/s1/eu", "int/s1/us"}, true},
		{"copies under two sectors, in order", []string{dir + "prod/s2/patch-001.yaml", dir + "int/patch-001.yaml"}, []string{"int", "prod/s2"}, true},
		{"a fold reaches every target of the cluster type", []string{
			dir + "values.yaml", dir + "history.yaml", dir + "int/patch-001.yaml",
		}, []string{""}, true},
		{"no operation reaches no target", nil, []string{}, true},
		{"another component's file cannot be told", []string{dir + "int/patch-001.yaml", "config/mc/podinfo/int/patch-001.yaml"}, nil, false},
		{"a path that leaves the component cannot be told", []string{dir + "../podinfo/int/patch-001.yaml"}, nil, false},
		{"a component whose name starts the same cannot be told", []string{"config/mc/cert-manager-2/int/patch-001.yaml"}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &Plan{ClusterType: "mc", Component: "cert-manager"}
			for _, path := range tc.paths {
				p.Ops = append(p.Ops, Op{Kind: "write", Path: path})
			}
			got, ok := p.Reach()
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Reach (-want +got):\n%s", diff)
			}
		})
	}
}
