package render

import (
	"bytes"
	"io/fs"
	"strings"
	"testing"

	"github.com/strata-fleet/strata/internal/fleet"
)

// A renderer loaded for part of the fleet (LoadScope, as a restricted run
// of package output loads it) lists exactly the targets under the scope's
// nodes, and gives each the fingerprint and the files the whole fleet's
// renderer gives it: the state one records is the other's. For every
// example fleet and a small bench fleet, each cluster type whole and at
// every node of the first dimension and the first node of each deeper one.
func TestScopedLoadRendersTheSame(t *testing.T) {
	forEachFleet(t, compareScoped)
}

func compareScoped(t *testing.T, fsys fs.FS) {
	t.Helper()
	full, err := Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Target{}
	for _, tg := range full.Targets() {
		want[tg.ID()] = tg
	}
	nodes := []string{""}
	for _, n := range full.Fleet.Config.Root.Children {
		nodes = append(nodes, n.ID())
	}
	for n := full.Fleet.Config.Root.Children[0]; len(n.Children) > 0; {
		n = n.Children[0]
		nodes = append(nodes, n.ID())
	}
	for _, ct := range full.Fleet.ClusterTypes {
		for _, node := range nodes {
			r, err := LoadScope(fsys, fleet.Scope{ct.Name: {node}})
			if err != nil {
				t.Fatalf("%s at %q: %v", ct.Name, node, err)
			}
			got := r.Targets()
			n := 0
			for _, tg := range want {
				if id := tg.Node.ID(); tg.ClusterType == ct && (node == "" || id == node || strings.HasPrefix(id, node+"/")) {
					n++
				}
			}
			if len(got) != n {
				t.Errorf("%s at %q: %d targets, want %d", ct.Name, node, len(got), n)
			}
			for _, tg := range got {
				ref := want[tg.ID()]
				if r.Fingerprint(tg) != full.Fingerprint(ref) {
					t.Errorf("%s: the fingerprint under the scope %s at %q differs", tg.ID(), ct.Name, node)
				}
				a, aerr := r.Render(tg)
				b, berr := full.Render(ref)
				if (aerr != nil) != (berr != nil) {
					t.Fatalf("%s: rendered with %v under the scope, %v whole", tg.ID(), aerr, berr)
				}
				if aerr != nil {
					continue
				}
				if len(a.Files) != len(b.Files) {
					t.Fatalf("%s: %d files under the scope, %d whole", tg.ID(), len(a.Files), len(b.Files))
				}
				for i := range a.Files {
					if a.Files[i].Path != b.Files[i].Path || !bytes.Equal(a.Files[i].Data, b.Files[i].Data) {
						t.Errorf("%s: %s differs under the scope %s at %q", tg.ID(), a.Files[i].Path, ct.Name, node)
					}
				}
			}
		}
	}
}
