package fleet_test

// The merge-order, patch and patch-conflict behaviours of the reference's
// hack/test_generate.py (TestApplicationValueMerging, TestIntegration,
// TestValidation), ported to strata. See reference_test.go.

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/values"
)

// componentValues returns the values of component comp of the
// management-cluster type for the target at path.
func componentValues(t *testing.T, f *fleet.Fleet, comp, path string) *values.Value {
	t.Helper()
	ct := f.ClusterType("management-cluster")
	c := ct.Component(comp)
	if c == nil {
		t.Fatalf("no component %s", comp)
	}
	n := f.Config.Find(strings.Split(path, "/"))
	if n == nil {
		t.Fatalf("no node %s", path)
	}
	v, err := ct.ComponentValues(c, n)
	if err != nil {
		t.Fatalf("ComponentValues: %v", err)
	}
	return v
}

const (
	prom     = "config/management-cluster/prometheus/"
	defaults = "config/management-cluster/defaults.yaml"
)

func TestReferenceMergeOrder(t *testing.T) {
	tests := []struct {
		name   string
		files  map[string]string
		target string
		want   string
	}{
		{
			name: "defaults apply under the item, then values.yaml, then the environment override",
			files: map[string]string{
				defaults:                          "applications:\n  default:\n    project: default\n    namespace: argocd\n",
				prom + "values.yaml":              "applications:\n  prometheus:\n    source: {targetRevision: 77.9.1}\n",
				prom + "production/override.yaml": "applications:\n  prometheus:\n    source: {targetRevision: 77.8.0}\n",
			},
			target: "production/prod-sector-1/us-east1",
			want: `applications:
  prometheus:
    project: default
    namespace: argocd
    source:
      targetRevision: 77.8.0
`,
		},
		{
			name: "an override adds nested values and keeps the base's siblings",
			files: map[string]string{
				prom + "values.yaml": "applications:\n  prometheus:\n    source: {targetRevision: 77.9.1}\n    destination: {namespace: monitoring}\n",
				prom + "production/override.yaml": `applications:
  prometheus:
    source:
      targetRevision: 77.8.0
      helm:
        valuesObject:
          prometheus:
            prometheusSpec: {retention: 30d}
`,
			},
			target: "production/prod-sector-1/us-east1",
			want: `applications:
  prometheus:
    project: default
    source:
      targetRevision: 77.8.0
      helm:
        valuesObject:
          prometheus:
            prometheusSpec:
              retention: 30d
    destination:
      namespace: monitoring
`,
		},
		{
			name: "a patch applies after the override of its level; its list replaces the override's",
			files: map[string]string{
				defaults: "applications:\n  default:\n    project: default\n    namespace: argocd\n" +
					"    syncPolicy: {automated: {prune: false, selfHeal: true}}\n",
				prom + "values.yaml": "applications:\n  prometheus:\n    source: {targetRevision: 77.9.1}\n    destination: {namespace: monitoring}\n",
				prom + "production/override.yaml": "applications:\n  prometheus:\n    source: {targetRevision: 77.8.0}\n" +
					"    syncPolicy: {syncOptions: [CreateNamespace=true]}\n",
				prom + "production/patch-001.yaml": `metadata:
  description: Upgrade to v77.9.0 with security fixes
  dependencies: ['cert-manager/source/targetRevision: >=v1.13.0']
applications:
  prometheus:
    source: {targetRevision: 77.9.0}
    syncPolicy: {syncOptions: [ServerSideApply=true]}
`,
			},
			target: "production/prod-sector-1/us-east1",
			want: `applications:
  prometheus:
    project: default
    namespace: argocd
    syncPolicy:
      automated:
        prune: false
        selfHeal: true
      syncOptions:
      - ServerSideApply=true
    source:
      targetRevision: 77.9.0
    destination:
      namespace: monitoring
`,
		},
		{
			name: "patches of one level apply in file-name order",
			files: map[string]string{
				prom + "values.yaml":                "applications:\n  prometheus:\n    source: {targetRevision: 77.8.0}\n",
				prom + "integration/patch-002.yaml": "metadata: {description: Second patch}\napplications:\n  prometheus:\n    source: {targetRevision: 77.9.1}\n",
				prom + "integration/patch-001.yaml": "metadata: {description: First patch}\napplications:\n  prometheus:\n    source: {targetRevision: 77.9.0}\n",
			},
			target: "integration/int-sector-1/us-central1",
			want:   "applications:\n  prometheus:\n    project: default\n    source:\n      targetRevision: 77.9.1\n",
		},
		{
			name: "a patch's metadata is not part of the values",
			files: map[string]string{
				prom + "values.yaml": "applications:\n  prometheus:\n    source: {targetRevision: 77.8.0}\n",
				prom + "integration/patch-001.yaml": `metadata:
  description: This should be ignored
  dependencies: [some/dependency]
  complex: {nested: data}
applications:
  prometheus:
    source: {targetRevision: 77.9.0}
`,
			},
			target: "integration/int-sector-1/us-central1",
			want:   "applications:\n  prometheus:\n    project: default\n    source:\n      targetRevision: 77.9.0\n",
		},
		{
			name: "levels apply outermost first: environment, sector, region",
			files: map[string]string{
				prom + "values.yaml":                                        "applications:\n  prometheus:\n    source: {targetRevision: base}\n",
				prom + "integration/override.yaml":                          "applications:\n  prometheus:\n    source: {targetRevision: env, a: env}\n",
				prom + "integration/int-sector-1/override.yaml":             "applications:\n  prometheus:\n    source: {targetRevision: sector, b: sector}\n",
				prom + "integration/int-sector-1/us-central1/override.yaml": "applications:\n  prometheus:\n    source: {targetRevision: region}\n",
			},
			target: "integration/int-sector-1/us-central1",
			want: `applications:
  prometheus:
    project: default
    source:
      targetRevision: region
      a: env
      b: sector
`,
		},
		{
			name: "a deeper level's override wins over a shallower level's patch",
			files: map[string]string{
				prom + "values.yaml":                            "applications:\n  prometheus:\n    source: {targetRevision: base}\n",
				prom + "integration/patch-001.yaml":             "applications:\n  prometheus:\n    source: {targetRevision: patched}\n",
				prom + "integration/int-sector-1/override.yaml": "applications:\n  prometheus:\n    source: {targetRevision: pinned}\n",
			},
			target: "integration/int-sector-1/europe-west1",
			want:   "applications:\n  prometheus:\n    project: default\n    source:\n      targetRevision: pinned\n",
		},
		{
			name: "levels of other nodes do not apply",
			files: map[string]string{
				prom + "values.yaml":                                         "applications:\n  prometheus:\n    source: {targetRevision: base}\n",
				prom + "production/override.yaml":                            "applications:\n  prometheus:\n    source: {targetRevision: prod}\n",
				prom + "integration/int-sector-1/us-central1/patch-001.yaml": "applications:\n  prometheus:\n    source: {targetRevision: canary}\n",
			},
			target: "integration/int-sector-1/europe-west1",
			want:   "applications:\n  prometheus:\n    project: default\n    source:\n      targetRevision: base\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := load(t, mcFleet(tc.files))
			got := string(values.Encode(componentValues(t, f, "prometheus", tc.target)))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("values (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReferencePatchConflicts ports test_patch_conflict_detection and
// test_get_patch_paths_function: two patches of one level that set the same
// field are reported (the reference prints a warning), and the later one
// still wins.
func TestReferencePatchConflicts(t *testing.T) {
	base := "applications:\n  prometheus:\n    source: {targetRevision: 77.8.0}\n"
	tests := []struct {
		name    string
		patches map[string]string // file name -> content, all in integration/
		want    []string          // "later <- earlier: paths"
	}{
		{
			name: "two patches setting the same field conflict",
			patches: map[string]string{
				"patch-001.yaml": "applications:\n  prometheus:\n    source: {targetRevision: 77.9.0}\n",
				"patch-002.yaml": "applications:\n  prometheus:\n    source: {targetRevision: 77.9.1}\n",
			},
			want: []string{"patch-002.yaml <- patch-001.yaml: applications.prometheus.source.targetRevision"},
		},
		{
			name: "patches setting different fields do not conflict",
			patches: map[string]string{
				"patch-001.yaml": "applications:\n  prometheus:\n    source: {targetRevision: 77.9.0}\n",
				"patch-002.yaml": "applications:\n  prometheus:\n    source: {helm: {valuesObject: {replicas: 2}}}\n",
			},
		},
		{
			name: "the fields of a patch are its leaves: scalars and whole lists, across items",
			patches: map[string]string{
				"patch-001.yaml": `applications:
  prometheus:
    source: {targetRevision: 77.9.0}
    syncPolicy: {syncOptions: [ServerSideApply=true]}
  cert-manager:
    source: {targetRevision: v1.16.0}
`,
				"patch-002.yaml": `applications:
  prometheus:
    source: {targetRevision: 77.9.1}
    syncPolicy: {syncOptions: [CreateNamespace=true]}
  cert-manager:
    source: {targetRevision: v1.17.0}
`,
			},
			want: []string{"patch-002.yaml <- patch-001.yaml: " +
				"applications.cert-manager.source.targetRevision, applications.prometheus.source.targetRevision, " +
				"applications.prometheus.syncPolicy.syncOptions"},
		},
		{
			name: "metadata is not a field",
			patches: map[string]string{
				"patch-001.yaml": "metadata: {description: one}\napplications:\n  prometheus:\n    source: {targetRevision: 77.9.0}\n",
				"patch-002.yaml": "metadata: {description: two}\napplications:\n  prometheus:\n    destination: {namespace: monitoring}\n",
			},
		},
		{
			name: "each later patch is checked against every earlier one",
			patches: map[string]string{
				"patch-001.yaml": "applications:\n  prometheus:\n    source: {targetRevision: a, chart: x}\n",
				"patch-002.yaml": "applications:\n  prometheus:\n    source: {chart: y}\n",
				"patch-003.yaml": "applications:\n  prometheus:\n    source: {targetRevision: c, chart: z}\n",
			},
			want: []string{
				"patch-002.yaml <- patch-001.yaml: applications.prometheus.source.chart",
				"patch-003.yaml <- patch-001.yaml: applications.prometheus.source.chart, applications.prometheus.source.targetRevision",
				"patch-003.yaml <- patch-002.yaml: applications.prometheus.source.chart",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{prom + "values.yaml": base}
			for name, data := range tc.patches {
				files[prom+"integration/"+name] = data
			}
			f := load(t, mcFleet(files))
			level := f.ClusterType("management-cluster").Component("prometheus").Levels["integration"]
			conflicts, err := level.Conflicts()
			if err != nil {
				t.Fatalf("Conflicts: %v", err)
			}
			got := []string{}
			for _, c := range conflicts {
				got = append(got, baseName(c.Patch.Path)+" <- "+baseName(c.Previous.Path)+": "+strings.Join(c.Paths, ", "))
			}
			if tc.want == nil {
				tc.want = []string{}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("conflicts (-want +got):\n%s", diff)
			}
			all, err := f.Conflicts()
			if err != nil {
				t.Fatalf("Fleet.Conflicts: %v", err)
			}
			if len(all) != len(conflicts) {
				t.Errorf("Fleet.Conflicts found %d conflicts, the level %d", len(all), len(conflicts))
			}
		})
	}
}

func TestReferencePatchConflictMessageAndWinner(t *testing.T) {
	f := load(t, mcFleet(map[string]string{
		prom + "values.yaml":                "applications:\n  prometheus:\n    source: {targetRevision: 77.8.0}\n",
		prom + "integration/patch-001.yaml": "applications:\n  prometheus:\n    source: {targetRevision: 77.9.0}\n",
		prom + "integration/patch-002.yaml": "applications:\n  prometheus:\n    source: {targetRevision: 77.9.1}\n",
	}))
	conflicts, err := f.Conflicts()
	if err != nil || len(conflicts) != 1 {
		t.Fatalf("Conflicts = %v, %v; want one conflict", conflicts, err)
	}
	want := prom + "integration/patch-002.yaml conflicts with " + prom + "integration/patch-001.yaml: " +
		"both set applications.prometheus.source.targetRevision (the later patch wins)"
	if diff := cmp.Diff(want, conflicts[0].String()); diff != "" {
		t.Errorf("message (-want +got):\n%s", diff)
	}
	v := componentValues(t, f, "prometheus", "integration/int-sector-1/us-central1")
	if got := v.Lookup("applications", "prometheus", "source", "targetRevision").Text; got != "77.9.1" {
		t.Errorf("targetRevision = %s, want the later patch's 77.9.1", got)
	}
}

func TestPatchesAtDifferentLevelsDoNotConflict(t *testing.T) {
	f := load(t, mcFleet(map[string]string{
		prom + "values.yaml":                             "applications:\n  prometheus:\n    source: {targetRevision: 77.8.0}\n",
		prom + "integration/patch-001.yaml":              "applications:\n  prometheus:\n    source: {targetRevision: 77.9.0}\n",
		prom + "integration/int-sector-1/patch-002.yaml": "applications:\n  prometheus:\n    source: {targetRevision: 77.9.1}\n",
	}))
	conflicts, err := f.Conflicts()
	if err != nil {
		t.Fatal(err)
	}
	if len(conflicts) != 0 {
		t.Errorf("Conflicts = %v, want none: a deeper level overrides on purpose", conflicts)
	}
}

func baseName(p string) string { return p[strings.LastIndex(p, "/")+1:] }
