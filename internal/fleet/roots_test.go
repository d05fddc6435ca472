package fleet_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/fleet"
)

// roots.syncPolicy is kept as written (integers as int64, for the API
// machinery); what is not a SyncPolicy is refused at its line.
func TestRootsSyncPolicy(t *testing.T) {
	for _, tc := range []struct {
		name, roots string
		want        map[string]any
		err         string
	}{
		{name: "none", roots: ""},
		{name: "server-side apply, a retry limit",
			roots: "roots:\n  syncPolicy:\n    automated: {prune: true}\n    syncOptions: [ServerSideApply=true]\n    retry: {limit: 5}\n",
			want: map[string]any{"automated": map[string]any{"prune": true}, "syncOptions": []any{"ServerSideApply=true"},
				"retry": map[string]any{"limit": int64(5)}}},
		{name: "an unknown field", roots: "roots:\n  syncPolicy:\n    automatic: {}\n",
			err: "roots.syncPolicy.automatic: unknown key\n    config/config.yaml:14:5\n    did you mean \"automated\"?"},
		{name: "an unknown key", roots: "roots:\n  name: root\n", err: "roots.name: unknown key"},
		{name: "syncOptions not a list", roots: "roots:\n  syncPolicy:\n    syncOptions: ServerSideApply=true\n", err: "roots.syncPolicy.syncOptions: expected a list"},
		{name: "not a mapping", roots: "roots:\n  syncPolicy: auto\n", err: "roots.syncPolicy: expected a mapping"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := fleet.ReadConfig(fstest.MapFS{fleet.ConfigPath: {Data: []byte(layoutConfig + tc.roots)}}, nil)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if c.Roots != nil {
				got = c.Roots.SyncPolicy
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("syncPolicy (-want +got):\n%s", diff)
			}
		})
	}
}
