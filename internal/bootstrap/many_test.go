package bootstrap_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/bootstrap"
	"github.com/strata-fleet/strata/internal/fleet"
)

func clusters(m *bootstrap.Many) []string {
	var out []string
	for _, b := range m.Bundles {
		out = append(out, b.Cluster)
	}
	for _, s := range m.Skipped {
		out = append(out, "skipped "+s.Cluster)
	}
	return out
}

func TestBuildManySelectsAndSkips(t *testing.T) {
	f := hubFleet(t, "https://spoke-1:6443")
	all := func(*fleet.Cluster) bool { return true }
	m, err := bootstrap.BuildMany(f, nil, all, bootstrap.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"hub-1", "spoke-2", "skipped spoke-1"}, clusters(m)); diff != "" {
		t.Errorf("every cluster (-want +got)\n%s", diff)
	}
	for expr, want := range map[string][]string{
		"tier=gold":               {"skipped spoke-1"},
		"strata.io/hub=hub-1":     {"spoke-2", "skipped spoke-1"},
		"cluster_type=hub":        {"hub-1"},
		"cluster in (hub-1,nope)": {"hub-1"},
	} {
		match, err := bootstrap.Selector(f, expr)
		if err != nil {
			t.Fatal(err)
		}
		m, err := bootstrap.BuildMany(f, nil, match, bootstrap.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, clusters(m)); diff != "" {
			t.Errorf("--selector %s (-want +got)\n%s", expr, diff)
		}
	}
	if _, err := bootstrap.Selector(f, "a in b"); err == nil {
		t.Error("a malformed selector: want an error")
	}
}

// TestChangedSinceIgnoresPins: moving a pin changes no root object; moving
// the repository changes every one.
func TestChangedSinceIgnoresPins(t *testing.T) {
	all := func(*fleet.Cluster) bool { return true }
	build := func(f *fleet.Fleet) *bootstrap.Many {
		m, err := bootstrap.BuildMany(f, nil, all, bootstrap.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	base := hubFleet(t, "https://spoke-1:6443")
	pinned := hubFleet(t, "https://spoke-1:6443")
	pinned.Config.Root.Children[0].Revision = &fleet.Revision{All: "v9.9.9"}
	if got := clusters(build(pinned).ChangedSince(build(base))); len(got) != 1 {
		t.Errorf("after a pin: %v, want nothing but the skipped spoke", got)
	}
	moved := hubFleet(t, "https://spoke-1:6443")
	moved.Config.Repository.URL = "https://git.example.com/other.git"
	if diff := cmp.Diff([]string{"hub-1", "spoke-2", "skipped spoke-1"}, clusters(build(moved).ChangedSince(build(base)))); diff != "" {
		t.Errorf("after moving the repository (-want +got)\n%s", diff)
	}
}
