package fleet_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/values"
)

// chartsFleet is the regional platform's shape: two cluster types, their
// own chart directories and a shared one, a global layer.
func chartsFleet(config string, extra map[string]string) fstest.MapFS {
	files := map[string]string{
		"config/config.yaml": "dimensions: [environments]\nsequence:\n  environments: [integration, staging]\n" +
			"cluster_types: [management-cluster, regional-cluster]\n" + config,
		"config/management-cluster/defaults.yaml":         "applications:\n  default:\n    project: default\n",
		"config/regional-cluster/defaults.yaml":           "applications:\n  default:\n    project: default\n",
		"argocd/management-cluster/hypershift/Chart.yaml": "name: hypershift\n",
		"argocd/management-cluster/docs/README.md":        "not a chart\n",
		"argocd/regional-cluster/frontend/Chart.yaml":     "name: frontend\n",
		"argocd/shared/argocd/Chart.yaml":                 "name: argocd\n",
	}
	for k, v := range extra {
		files[k] = v
	}
	fsys := fstest.MapFS{}
	for k, v := range files {
		fsys[k] = &fstest.MapFile{Data: []byte(v)}
	}
	return fsys
}

func componentNames(ct *fleet.ClusterType) string {
	var out []string
	for _, c := range ct.Components {
		out = append(out, c.Name)
	}
	return strings.Join(out, ",")
}

// Each chart directory is a component of every cluster type it serves, in
// name order with config/'s own; its item is the entry's application:.
func TestChartsDiscovered(t *testing.T) {
	f, err := fleet.Load(chartsFleet("charts:\n- dir: argocd/{clusterType}\n  application: {destination: {namespace: '{chart}'}, source: {path: '{path}'}}\n"+
		"- dir: argocd/shared\n  clusterTypes: [regional-cluster]\n", map[string]string{
		"config/regional-cluster/frontend/integration/override.yaml": "applications:\n  frontend:\n    source: {targetRevision: v2}\n",
		"config/regional-cluster/plain/values.yaml":                  "applications:\n  plain:\n    source: {path: plain}\n",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if got := componentNames(f.ClusterType("management-cluster")); got != "hypershift" {
		t.Errorf("management-cluster components %s, want hypershift (shared serves regional-cluster only, docs has no Chart.yaml)", got)
	}
	rc := f.ClusterType("regional-cluster")
	if got := componentNames(rc); got != "argocd,frontend,plain" {
		t.Errorf("regional-cluster components %s, want argocd,frontend,plain", got)
	}
	for _, tc := range []struct{ comp, node, field, want, file string }{
		{"frontend", "integration", "applications.frontend.source.path", "argocd/regional-cluster/frontend", fleet.ConfigPath},
		{"frontend", "integration", "applications.frontend.destination.namespace", "frontend", fleet.ConfigPath},
		{"frontend", "integration", "applications.frontend.source.targetRevision", "v2", "config/regional-cluster/frontend/integration/override.yaml"},
		{"frontend", "staging", "applications.frontend.source.targetRevision", "", ""},
		{"argocd", "staging", "applications.argocd.source.path", "argocd/shared/argocd", fleet.ConfigPath},
		{"argocd", "staging", "applications.argocd.project", "default", "config/regional-cluster/defaults.yaml"},
	} {
		n := f.Config.Find([]string{tc.node})
		v, err := rc.ComponentValues(rc.Component(tc.comp), n)
		if err != nil {
			t.Fatal(err)
		}
		got := v.Lookup(strings.Split(tc.field, ".")...)
		switch {
		case tc.want == "" && got != nil:
			t.Errorf("%s at %s = %q, want it absent", tc.field, tc.node, got.Text)
		case tc.want != "" && (got == nil || got.Text != tc.want || got.Pos.File != tc.file):
			t.Errorf("%s at %s = %+v, want %q from %s", tc.field, tc.node, got, tc.want, tc.file)
		}
	}
}

// The global layer: its defaults under every cluster type's, its level's
// default over every item at that node, under the component's own level.
func TestGlobalLayer(t *testing.T) {
	f, err := fleet.Load(chartsFleet("charts: [{dir: argocd/shared}]\nglobal: true\n", map[string]string{
		"config/global/defaults.yaml":                          "applications:\n  default:\n    project: global\n    syncPolicy: {automated: {prune: true}}\n    env: base\n",
		"config/global/staging/override.yaml":                  "applications:\n  default:\n    env: staging\n    syncPolicy: {automated: {selfHeal: true}}\n",
		"config/regional-cluster/argocd/staging/override.yaml": "applications:\n  argocd:\n    syncPolicy: {automated: {prune: false}}\n",
	}))
	if err != nil {
		t.Fatal(err)
	}
	rc := f.ClusterType("regional-cluster")
	at := func(node string) *values.Value {
		v, err := rc.ComponentValues(rc.Component("argocd"), f.Config.Find([]string{node}))
		if err != nil {
			t.Fatal(err)
		}
		return v.Get("applications").Get("argocd")
	}
	for _, tc := range []struct{ node, field, want string }{
		{"integration", "project", "default"}, // the cluster type's defaults over the global ones
		{"integration", "env", "base"},
		{"integration", "syncPolicy.automated.prune", "true"},
		{"staging", "env", "staging"},
		{"staging", "syncPolicy.automated.selfHeal", "true"},
		{"staging", "syncPolicy.automated.prune", "false"}, // the component's own level over the global one
	} {
		got := at(tc.node).Lookup(strings.Split(tc.field, ".")...)
		if got == nil || got.Text != tc.want {
			t.Errorf("%s at %s = %+v, want %s", tc.field, tc.node, got, tc.want)
		}
	}
}

// Mistakes are named with the file and line that make them.
func TestChartsErrors(t *testing.T) {
	for _, tc := range []struct {
		name, config string
		extra        map[string]string
		err          string
	}{
		{"dir missing", "charts: [{application: {}}]\n", nil, "charts.0: missing key dir|config/config.yaml:5:10"},
		{"dir leaves the repository", "charts: [{dir: ../x}]\n", nil, `charts.0.dir: "../x" is not a directory of the repository`},
		{"dir under config", "charts: [{dir: 'config/{clusterType}'}]\n", nil, "is under config/"},
		{"another placeholder", "charts: [{dir: 'argocd/{environment}'}]\n", nil, "holds a placeholder other than {clusterType}"},
		{"unknown cluster type", "charts: [{dir: argocd/shared, clusterTypes: [hub]}]\n", nil,
			"charts.0.clusterTypes.0: unknown cluster type \"hub\"|config/config.yaml:5:"},
		{"listed twice", "charts: [{dir: argocd/shared}, {dir: argocd/shared}]\n", nil, "directory argocd/shared is listed twice"},
		{"unknown key", "charts: [{dir: argocd/shared, values: {}}]\n", nil, "charts.0.values: unknown key"},
		{"no such directory", "charts: [{dir: 'argocd/{clusterType}-charts'}]\n", nil,
			"charts directory argocd/management-cluster-charts (for cluster type \"management-cluster\") does not exist"},
		{"a chart twice", "charts: [{dir: 'argocd/{clusterType}'}, {dir: argocd/shared}]\n",
			map[string]string{"argocd/management-cluster/argocd/Chart.yaml": "name: argocd\n"},
			`cluster type "management-cluster" has two charts named "argocd": argocd/management-cluster/argocd and argocd/shared/argocd`},
		{"a chart's bad name", "charts: [{dir: argocd/shared}]\n", map[string]string{"argocd/shared/-x/Chart.yaml": "name: x\n"},
			"chart directory: name \"-x\"|argocd/shared/-x/"},
		{"global not a bool", "global: config/global\n", nil, "global: expected a bool"},
		{"global without its directory", "global: true\n", nil, "config/global/ does not exist"},
		{"a patch in the global layer", "global: true\n", map[string]string{"config/global/staging/patch-1.yaml": "applications: {default: {a: 1}}\n"},
			"a patch in the global layer|config/global/staging/patch-1.yaml"},
		{"a stray global file", "global: true\n", map[string]string{"config/global/values.yaml": "a: 1\n"}, "stray file in config/global/|config/global/values.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := fleet.Load(chartsFleet(tc.config, tc.extra))
			if !containsAll(err, tc.err) {
				t.Fatalf("error %v, want one containing %q", err, tc.err)
			}
		})
	}
	// A cluster type named global with global: true.
	fsys := chartsFleet("", nil)
	fsys["config/config.yaml"] = &fstest.MapFile{Data: []byte("dimensions: [environments]\nsequence:\n  environments: [a]\ncluster_types: [global]\nglobal: true\n")}
	if _, err := fleet.Load(fsys); err == nil || !containsAll(err, `cluster_types: cluster type "global" is reserved|config/config.yaml:4:17`) {
		t.Errorf("error %v, want the reserved name at its line", err)
	}
	// A bad global default item names its file.
	fsys = chartsFleet("charts: [{dir: argocd/shared}]\nglobal: true\n", map[string]string{"config/global/defaults.yaml": "applications: {item: {}}\n"})
	f, err := fleet.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	ct := f.ClusterType("regional-cluster")
	if _, err := ct.ComponentValues(ct.Component("argocd"), f.Targets[0]); err == nil || !containsAll(err, "applications.item: unknown key|config/global/defaults.yaml:1:16") {
		t.Errorf("error %v, want the global file's unknown item named", err)
	}
}

// containsAll reports whether err's text holds every |-separated part of
// want.
func containsAll(err error, want string) bool {
	if err == nil {
		return false
	}
	for _, w := range strings.Split(want, "|") {
		if !strings.Contains(err.Error(), w) {
			return false
		}
	}
	return true
}
