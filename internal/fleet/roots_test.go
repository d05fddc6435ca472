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
		{name: "an unknown key", roots: "roots:\n  names: root\n", err: "roots.names: unknown key"},
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

// roots.name names each cluster's root with its placeholders replaced;
// without it a cluster's root is root and a spoke's <cluster>-root.
// roots.project is the project where neither the cluster nor its type
// names one.
func TestRootsNameKindProject(t *testing.T) {
	const cfg = `dimensions: [environments, clusters]
sequence:
  environments:
    - name: ops
      clusters: [ops-01]
    - name: prod
      clusters: [prod-01]
cluster_types:
  - name: platform
`
	clusters := fstest.MapFS{
		"config/platform/defaults.yaml": {Data: []byte("applications: {default: {project: default}}\n")},
		"config/clusters/ops-01.yaml":   {Data: []byte("type: platform\ntarget: ops/ops-01\n")},
		"config/clusters/prod-01.yaml":  {Data: []byte("type: platform\ntarget: prod/prod-01\nhub: ops-01\nserver: https://prod-01:6443\nproject: tenants\n")},
	}
	load := func(t *testing.T, roots string) (*fleet.Fleet, error) {
		fsys := fstest.MapFS{fleet.ConfigPath: {Data: []byte(cfg + roots)}}
		for k, v := range clusters {
			fsys[k] = v
		}
		return fleet.Load(fsys)
	}
	for _, tc := range []struct {
		name, roots      string
		kind             string
		names, projects  []string // ops-01's, prod-01's
		hubTemplate, err string
	}{
		{name: "strata's", kind: "ApplicationSet", names: []string{"root", "prod-01-root"}, projects: []string{"default", "tenants"},
			hubTemplate: "{{ .name }}-root"},
		{name: "ADR-006's", roots: "roots:\n  kind: Application\n  name: \"{cluster}-bootstrap-apps\"\n  project: operations\n",
			kind: "Application", names: []string{"ops-01-bootstrap-apps", "prod-01-bootstrap-apps"}, projects: []string{"operations", "tenants"},
			hubTemplate: "{{ .name }}-bootstrap-apps"},
		{name: "dimensions and the cluster type", roots: "roots:\n  name: \"{environment}-{clusterType}-{cluster}\"\n",
			kind: "ApplicationSet", names: []string{"ops-platform-ops-01", "prod-platform-prod-01"}, projects: []string{"default", "tenants"},
			hubTemplate: "L-platform-{{ .name }}"},
		{name: "unknown kind", roots: "roots:\n  kind: application\n", err: `roots.kind: unknown kind "application" of the roots`},
		{name: "kind not a string", roots: "roots:\n  kind: [Application]\n", err: "roots.kind: expected a string"},
		{name: "unknown placeholder", roots: "roots:\n  name: \"{region}-root\"\n", err: "unknown placeholder {region} in the roots' name"},
		{name: "unclosed placeholder", roots: "roots:\n  name: \"{cluster-root\"\n", err: "has a '{' without its '}'"},
		{name: "empty name", roots: "roots:\n  name: \"\"\n", err: "the roots' name is empty"},
		{name: "one name in one Argo CD", roots: "roots:\n  name: \"{clusterType}-root\"\n",
			err: "the roots of clusters ops-01 and prod-01 would both be platform-root in the Argo CD of ops-01"},
		{name: "not an object name", roots: "roots:\n  name: \"{cluster}.\"\n", err: `the root of cluster ops-01 would be named "ops-01.", not a valid object name`},
		{name: "the hub's ApplicationSet's name", roots: "roots:\n  name: \"{clusterType}-{cluster}\"\n",
			kind: "ApplicationSet", names: []string{"platform-ops-01", "platform-prod-01"}, projects: []string{"default", "tenants"},
			hubTemplate: "platform-{{ .name }}"},
		{name: "the hub's ApplicationSet's name taken", roots: "roots:\n  name: \"root-{clusterType}\"\n",
			err: "the root ApplicationSet of cluster ops-01 would be root-platform, the name of the ApplicationSet that makes the roots of its spokes of type platform"},
		{name: "bad project", roots: "roots:\n  project: Ops\n", err: "roots.project"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := load(t, tc.roots)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				if !strings.Contains(err.Error(), "config/config.yaml:") {
					t.Errorf("error %v names no line of config.yaml", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := f.Config.RootKind(); got != tc.kind {
				t.Errorf("kind %q, want %q", got, tc.kind)
			}
			var names, projects []string
			for _, c := range []string{"ops-01", "prod-01"} {
				names = append(names, f.Config.RootName(f.Cluster(c)))
				projects = append(projects, f.Cluster(c).Project)
			}
			if diff := cmp.Diff(tc.names, names); diff != "" {
				t.Errorf("names (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.projects, projects); diff != "" {
				t.Errorf("projects (-want +got):\n%s", diff)
			}
			if got := f.Config.RootNameTemplate(true, "platform", "{{ .name }}", func(int) string { return "L" }); got != tc.hubTemplate {
				t.Errorf("hub template %q, want %q", got, tc.hubTemplate)
			}
		})
	}
}
