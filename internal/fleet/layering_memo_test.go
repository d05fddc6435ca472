package fleet

import (
	"testing"
	"testing/fstest"
)

// TestComponentValuesKeepsNoTargetsOwnValues checks that the values memo
// holds the shared levels' values and none of a target's own (nor its
// decoded override): with an
// override per region, keeping those would make a render's memory grow with
// the number of targets.
func TestComponentValuesKeepsNoTargetsOwnValues(t *testing.T) {
	const comp = "config/management-cluster/app/"
	fsys := fstest.MapFS{
		"config/config.yaml": {Data: []byte("dimensions: [environments, sectors, regions]\n" +
			"sequence:\n  environments:\n  - name: integration\n    sectors:\n    - name: s1\n" +
			"      regions: [{name: r1}, {name: r2}]\n" +
			"cluster_types: [{name: management-cluster}]\n")},
		"config/management-cluster/defaults.yaml": {Data: []byte("applications:\n  default:\n    project: default\n")},
		comp + "values.yaml":                      {Data: []byte("applications:\n  app:\n    replicas: 1\n")},
		comp + "integration/override.yaml":        {Data: []byte("applications:\n  app:\n    replicas: 2\n")},
		comp + "integration/s1/r1/override.yaml":  {Data: []byte("applications:\n  app:\n    replicas: 3\n")},
	}
	f, err := Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	ct := f.ClusterTypes[0]
	c := ct.Components[0]
	for _, n := range f.Targets {
		for range 2 {
			v, err := ct.ComponentValues(c, n)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"r1": "3", "r2": "2"}[n.Name]
			if got := v.Lookup("applications", "app", "replicas").Text; got != want {
				t.Errorf("%s: replicas %s, want %s", n.ID(), got, want)
			}
		}
	}
	for id, l := range c.Levels {
		if l.Override != nil && l.Override.value != nil && id == "integration/s1/r1" {
			t.Errorf("decoded override of target %s kept", id)
		}
	}
	c.atNode.Range(func(k, _ any) bool {
		if n := k.(*Node); len(n.Children) == 0 {
			t.Errorf("values of target %s kept", n.ID())
		}
		return true
	})
}
