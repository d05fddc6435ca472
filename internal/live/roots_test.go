package live_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/testing/testfleet"
)

// A root Application whose values do not name its cluster is the
// cluster's when it renders the cluster's directory and has the name
// config.yaml's roots.name gives it (strata's root otherwise); another name
// is not taken for it.
func TestFindRootByConfiguredName(t *testing.T) {
	dir := t.TempDir()
	if err := testfleet.Write(dir); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "config/clusters/mc-int.yaml", "type: management-cluster\ntarget: integration/int-sector-1/us-central1\n")
	cfg := filepath.Join(dir, "config", "config.yaml")
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		roots, app, want string
	}{
		{roots: "", app: "root", want: "root"},
		{roots: "roots: {name: '{cluster}-bootstrap-apps'}\n", app: "mc-int-bootstrap-apps", want: "mc-int-bootstrap-apps"},
		{roots: "roots: {name: '{cluster}-bootstrap-apps'}\n", app: "root", want: ""},
	} {
		if err := os.WriteFile(cfg, append(append([]byte(nil), data...), tc.roots...), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := fleet.Load(os.DirFS(dir))
		if err != nil {
			t.Fatal(err)
		}
		c := f.Cluster("mc-int")
		in := &live.Instance{Cluster: "mc-int", Applications: []live.App{{Name: tc.app, Path: live.RootPath(f.Config, c), Sync: "Synced", Revision: "abc"}}}
		rep := live.Join(f, nil, []*live.Instance{in}, nil)
		if len(rep.Roots) != 1 || rep.Roots[0].Name != tc.want {
			t.Errorf("roots %q, Application %s: root %+v, want one named %q", tc.roots, tc.app, rep.Roots, tc.want)
		}
	}
}
