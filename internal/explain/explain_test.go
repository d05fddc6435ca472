package explain_test

import (
	"encoding/json"
	"flag"
	"github.com/strata-fleet/strata/internal/testing/goldenfile"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/explain"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/status"
	"github.com/strata-fleet/strata/internal/testing/testfleet"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

const cm = "config/management-cluster/cert-manager/"

// load returns the test fleet with extra files added.
func load(t *testing.T, extra map[string]string) *fleet.Fleet {
	t.Helper()
	m := fstest.MapFS{}
	err := fs.WalkDir(testfleet.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(testfleet.FS(), p)
		m[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for p, data := range extra {
		m[p] = &fstest.MapFile{Data: []byte(data)}
	}
	f, err := fleet.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func run(t *testing.T, f *fleet.Fleet, target, component, field string) (*explain.Result, error) {
	t.Helper()
	ct, n, err := status.FindTarget(f, target)
	if err != nil {
		t.Fatal(err)
	}
	return explain.Explain(ct, n, target, component, field)
}

// brief is a step as the tests compare it.
func brief(r *explain.Result) []string {
	var out []string
	for _, s := range r.Chain {
		line := s.Pos().String() + " " + s.Layer + " " + s.At + " = " + strings.ReplaceAll(s.Value, "\n", "; ")
		if s.Parent {
			line += " (replaces a parent)"
		}
		if s.Effective {
			line += " *"
		}
		out = append(out, line)
	}
	return out
}

func TestExplain(t *testing.T) {
	f := load(t, nil)
	for _, tc := range []struct {
		name, target, component, field string
		field2                         string // the resolved path
		value                          string
		chain                          []string
	}{
		{
			name:   "an environment override wins over the base version",
			target: "production/prod-sector-1/us-east1", component: "cert-manager", field: "source.targetRevision",
			field2: "applications.cert-manager.source.targetRevision", value: "v1.17.0",
			chain: []string{
				cm + "values.yaml:5:7 values applications.cert-manager.source.targetRevision = v1.18.2",
				cm + "production/override.yaml:4:7 override applications.cert-manager.source.targetRevision = v1.17.0 *",
			},
		},
		{
			name:   "a patch at the environment level sets the version in integration",
			target: "integration/int-sector-2/us-east1", component: "cert-manager", field: "source.targetRevision",
			field2: "applications.cert-manager.source.targetRevision", value: "v1.19.0",
			chain: []string{
				cm + "values.yaml:5:7 values applications.cert-manager.source.targetRevision = v1.18.2",
				cm + "integration/patch-001.yaml:7:7 patch-001 applications.cert-manager.source.targetRevision = v1.19.0 *",
			},
		},
		{
			name:   "a field from the cluster type's defaults",
			target: "stage/stage-sector-2/ap-east1", component: "prometheus", field: "syncPolicy.automated.selfHeal",
			field2: "applications.prometheus.syncPolicy.automated.selfHeal", value: "true",
			chain: []string{
				"config/management-cluster/defaults.yaml:10:9 defaults applications.default.syncPolicy.automated.selfHeal = true *",
			},
		},
		{
			name:   "a full path and a list index",
			target: "production/prod-canary/us-east1", component: "hypershift", field: "applications.hypershift.sources[0].targetRevision",
			field2: "applications.hypershift.sources.0.targetRevision", value: "v0.1.58",
			chain: []string{
				"config/management-cluster/hypershift/values.yaml:6:9 values applications.hypershift.sources.0.targetRevision = v0.1.60",
				"config/management-cluster/hypershift/production/override.yaml:6:9 override applications.hypershift.sources.0.targetRevision = v0.1.58 *",
			},
		},
		{
			name:   "the item's name starts the path",
			target: "stage/stage-sector-1/us-east1", component: "cert-manager", field: "cert-manager.destination.namespace",
			field2: "applications.cert-manager.destination.namespace", value: "cert-manager",
			chain: []string{
				cm + "values.yaml:14:7 values applications.cert-manager.destination.namespace = cert-manager *",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := run(t, f, tc.target, tc.component, tc.field)
			if err != nil {
				t.Fatal(err)
			}
			if r.Field != tc.field2 || r.Value != tc.value || !r.Set {
				t.Errorf("got %s = %q (set %v), want %s = %q", r.Field, r.Value, r.Set, tc.field2, tc.value)
			}
			if diff := cmp.Diff(tc.chain, brief(r)); diff != "" {
				t.Errorf("chain (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExplainMappingGolden(t *testing.T) {
	f := load(t, nil)
	r, err := run(t, f, "production/prod-sector-1/us-east1", "cert-manager", "source")
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "source-mapping.json", append(b, '\n'))
	golden(t, "source-mapping.yaml", []byte(explain.Format(r.Lines)))
}

func TestExplainRemoved(t *testing.T) {
	f := load(t, map[string]string{
		cm + "stage/stage-sector-2/override.yaml": "applications:\n  cert-manager:\n    source:\n      helm: null\n",
	})
	r, err := run(t, f, "stage/stage-sector-2/ap-east1", "cert-manager", "source.helm.valuesObject.crds.enabled")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		cm + "values.yaml:10:13 values applications.cert-manager.source.helm.valuesObject.crds.enabled = true",
		cm + "stage/stage-sector-2/override.yaml:4:7 override applications.cert-manager.source.helm = null (replaces a parent) *",
	}
	if r.Set {
		t.Errorf("the field is reported as set to %q", r.Value)
	}
	if diff := cmp.Diff(want, brief(r)); diff != "" {
		t.Errorf("chain (-want +got):\n%s", diff)
	}
}

func TestExplainErrors(t *testing.T) {
	f := load(t, nil)
	for _, tc := range []struct{ component, field, want string }{
		{"cert-manger", "source", `unknown component "cert-manger" of cluster type management-cluster (one of: cert-manager, prometheus, hypershift)`},
		{"cert-manager", "source.targetRevison", `cert-manager has no field applications.cert-manager.source.targetRevison at integration/int-sector-1/us-central1 (applications.cert-manager.source has: repoURL, targetRevision, chart, helm)`},
		{"hypershift", "sources.5", `is a list of 2 items: use an index, 0 to 1`},
		{"cert-manager", "source..chart", `empty key`},
		{"cert-manager", `source."chart`, `unterminated quote`},
	} {
		t.Run(tc.field, func(t *testing.T) {
			_, err := run(t, f, "integration/int-sector-1/us-central1", tc.component, tc.field)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestParsePath(t *testing.T) {
	for in, want := range map[string][]string{
		"source.targetRevision":           {"source", "targetRevision"},
		`annotations."example.com/owner"`: {"annotations", "example.com/owner"},
		"sources[1].targetRevision":       {"sources", "1", "targetRevision"},
		"sources.1":                       {"sources", "1"},
	} {
		got, err := explain.ParsePath(in)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", in, diff)
		}
	}
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got, *update)
}

func TestExplainAmbiguous(t *testing.T) {
	f := load(t, map[string]string{
		"config/management-cluster/prometheus/values.yaml": "applications:\n  prometheus:\n    destination: {namespace: monitoring}\n  alertmanager:\n    destination: {namespace: monitoring}\n",
	})
	_, err := run(t, f, "stage/stage-sector-2/ap-east1", "prometheus", "destination.namespace")
	if err != nil {
		t.Errorf("the item named like the component should win: %v", err)
	}
	_, err = run(t, f, "stage/stage-sector-2/ap-east1", "cert-manager", "destination.namespace")
	if err != nil {
		t.Error(err)
	}
	f = load(t, map[string]string{
		"config/management-cluster/prometheus/values.yaml": "applications:\n  server:\n    destination: {namespace: monitoring}\n  alertmanager:\n    destination: {namespace: monitoring}\n",
	})
	_, err = run(t, f, "stage/stage-sector-2/ap-east1", "prometheus", "destination.namespace")
	want := "destination.namespace is ambiguous in prometheus: it is applications.server.destination.namespace and applications.alertmanager.destination.namespace; name the item (server.destination.namespace)"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
