package promote

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// patchWith is a patch setting test-app's targetRevision.
func patchWith(revision string) string {
	return "applications:\n  test-app:\n    source:\n      targetRevision: \"" + revision + "\"\n"
}

// overrideWith is an override.yaml setting test-app's targetRevision.
const overrideWith = "applications:\n  test-app:\n    source:\n      targetRevision: \"1.5.0\"  # pinned here\n"

// TestRefusals: promotions that would lose or change something are refused,
// before anything is written, with an error naming the files and the field.
func TestRefusals(t *testing.T) {
	f := func(l string) string { return patchFile(l, "patch-001") }
	tests := []struct {
		name   string
		config string
		files  map[string]string
		opts   Options
		want   string
	}{
		{
			// test_coalesce_patches_content_preservation gives the two
			// regions different contents; the reference keeps the first and
			// loses the second silently.
			name:   "copies that differ are not coalesced",
			config: realConfig,
			files: map[string]string{
				f("integration/int-sector-1/us-central1"):  "applications:\n  test-app:\n    source:\n      targetRevision: region1-specific-content\n",
				f("integration/int-sector-1/europe-west1"): "applications:\n  test-app:\n    source:\n      targetRevision: region2-specific-content\n",
			},
			want: "cannot coalesce patch-001 into integration: its copies differ (at applications.test-app.source.targetRevision):\n" +
				"    config/management-cluster/test-app/integration/int-sector-1/us-central1/patch-001.yaml\n" +
				"    config/management-cluster/test-app/integration/int-sector-1/europe-west1/patch-001.yaml\n" +
				"    config/management-cluster/test-app/integration/int-sector-2/patch-001.yaml\n" +
				"make them identical (or give the different change its own patch name), then promote again",
		},
		{
			name:   "copies with a key only one of them has are not coalesced",
			config: realConfig,
			files: map[string]string{
				f("integration/int-sector-1"): patchWith("2.0.0"),
				f("integration/int-sector-2"): patchWith("2.0.0") + "    project: other\n",
			},
			want: "cannot coalesce patch-001 into integration: its copies differ (at applications.test-app.project):\n" +
				"    config/management-cluster/test-app/integration/int-sector-1/patch-001.yaml\n" +
				"    config/management-cluster/test-app/integration/int-sector-2/patch-001.yaml\n" +
				"make them identical (or give the different change its own patch name), then promote again",
		},
		{
			// test_final_consolidation_to_values_yaml leaves a different
			// patch in integration than in stage and production; the
			// reference folds integration's alone.
			name:   "copies that differ are not folded into values.yaml",
			config: realConfig,
			files: map[string]string{
				f("integration"): "metadata:\n  description: Test patch for consolidation\n" + patchWith("v2.0.0"),
				f("stage"):       patchWith("v2.0.0"),
				f("production"):  patchWith("v1.9.0"),
			},
			want: "cannot fold patch-001 into config/management-cluster/test-app/values.yaml: its copies differ (at applications.test-app.source.targetRevision):\n" +
				"    config/management-cluster/test-app/integration/patch-001.yaml\n" +
				"    config/management-cluster/test-app/production/patch-001.yaml\n" +
				"make them identical (or give the different change its own patch name), then promote again",
		},
		{
			name:   "a different copy left below a top-level one is not folded",
			config: realConfig,
			files: map[string]string{
				f("integration"): patchWith("2.0.0"),
				f("integration/int-sector-1/us-central1"): patchWith("2.0.1"),
				f("stage"):      patchWith("2.0.0"),
				f("production"): patchWith("2.0.0"),
			},
			want: "cannot fold patch-001 into config/management-cluster/test-app/values.yaml: its copies differ (at applications.test-app.source.targetRevision):\n" +
				"    config/management-cluster/test-app/integration/patch-001.yaml\n" +
				"    config/management-cluster/test-app/integration/int-sector-1/us-central1/patch-001.yaml\n" +
				"make them identical (or give the different change its own patch name), then promote again",
		},
		{
			name:   "an override below the coalesce node setting the same field",
			config: realConfig,
			files: map[string]string{
				f("integration/int-sector-1/us-central1"):                      patchWith("2.0.0"),
				appDir + "/integration/int-sector-1/us-central1/override.yaml": overrideWith,
			},
			want: "refusing to promote patch-001: coalescing would change applications.test-app.source.targetRevision at integration/int-sector-1/us-central1 (would become 1.5.0):\n" +
				"    config/management-cluster/test-app/integration/int-sector-1/us-central1/override.yaml sets the same field and would win over the patch; move the field into the patch (or out of that file) first",
		},
		{
			name:   "an override at a sector blocks coalescing into its environment",
			config: realConfig,
			files: map[string]string{
				f("integration"):                               patchWith("2.0.0"),
				f("stage/stage-sector-1"):                      patchWith("2.0.0"),
				appDir + "/stage/stage-sector-2/override.yaml": overrideWith,
			},
			want: "refusing to promote patch-001: coalescing would change applications.test-app.source.targetRevision at stage/stage-sector-2/europe-west1 (would become 1.5.0):\n" +
				"    config/management-cluster/test-app/stage/stage-sector-2/override.yaml sets the same field and would win over the patch; move the field into the patch (or out of that file) first",
		},
		{
			// The last environment's coalescing and the integration are
			// one restructuring, checked as one.
			name:   "an override at a sector of the last environment blocks the integration",
			config: realConfig,
			files: map[string]string{
				f("integration"):            patchWith("2.0.0"),
				f("stage"):                  patchWith("2.0.0"),
				f("production/prod-canary"): patchWith("2.0.0"),
				appDir + "/production/prod-sector-1/override.yaml": overrideWith,
			},
			want: "refusing to promote patch-001: folding it into config/management-cluster/test-app/values.yaml would change applications.test-app.source.targetRevision at production/prod-sector-1/us-east1, production/prod-sector-1/europe-east1 (would become 1.5.0):\n" +
				"    config/management-cluster/test-app/production/prod-sector-1/override.yaml sets the same field and would win over the patch; move the field into the patch (or out of that file) first",
		},
		{
			name:   "an override at an environment blocks the integration",
			config: realConfig,
			files: map[string]string{
				f("integration"):                patchWith("2.0.0"),
				f("stage"):                      patchWith("2.0.0"),
				f("production"):                 patchWith("2.0.0"),
				appDir + "/stage/override.yaml": overrideWith,
			},
			want: "refusing to promote patch-001: folding it into config/management-cluster/test-app/values.yaml would change applications.test-app.source.targetRevision at stage/stage-sector-1/us-east1, stage/stage-sector-2/europe-west1 (would become 1.5.0):\n" +
				"    config/management-cluster/test-app/stage/override.yaml sets the same field and would win over the patch; move the field into the patch (or out of that file) first",
		},
		{
			// Every conflict at once, not one per run: copies that differ
			// under stage, and an override under integration that would win
			// over the coalesced patch.
			name:   "every conflict of a fold is listed at once",
			config: realConfig,
			files: map[string]string{
				f("integration/int-sector-1"):                      patchWith("2.0.0"),
				f("integration/int-sector-2"):                      patchWith("2.0.0"),
				appDir + "/integration/int-sector-1/override.yaml": overrideWith,
				f("stage/stage-sector-1"):                          patchWith("2.0.0"),
				f("stage/stage-sector-2"):                          patchWith("2.0.1"),
			},
			want: "cannot promote patch-001: 2 conflicts, all listed here:\n" +
				"  1. cannot coalesce patch-001 into stage: its copies differ (at applications.test-app.source.targetRevision):\n" +
				"         config/management-cluster/test-app/stage/stage-sector-1/patch-001.yaml\n" +
				"         config/management-cluster/test-app/stage/stage-sector-2/patch-001.yaml\n" +
				"     make them identical (or give the different change its own patch name), then promote again\n" +
				"  2. refusing to promote patch-001: coalescing would change applications.test-app.source.targetRevision at integration/int-sector-1/us-central1, integration/int-sector-1/europe-west1 (would become 1.5.0):\n" +
				"         config/management-cluster/test-app/integration/int-sector-1/override.yaml sets the same field and would win over the patch; move the field into the patch (or out of that file) first",
		},
		{
			name:   "unknown cluster type",
			config: seedConfig,
			files:  patchesAt("integration"),
			opts:   Options{ClusterType: "mgmt-cluster"},
			want:   `unknown cluster type "mgmt-cluster" (one of: infra-cluster, management-cluster)`,
		},
		{
			name:   "unknown component",
			config: realConfig,
			files:  with(patchesAt("integration"), map[string]string{"config/management-cluster/other-app/values.yaml": "applications:\n  other-app:\n    project: x\n"}),
			opts:   Options{Component: "hypershift-operator"},
			want:   `unknown component "hypershift-operator" of cluster type management-cluster (one of: test-app, other-app)`,
		},
		{
			name:   "not a patch name",
			config: realConfig,
			files:  patchesAt("integration"),
			opts:   Options{Patch: "nonexistent-patch"},
			want:   `"nonexistent-patch" is not a patch name: patches are files named patch-<id>.yaml, named without the extension (patch-001)`,
		},
		{
			name:   "a path is not a patch name",
			config: realConfig,
			files:  patchesAt("integration"),
			opts:   Options{Patch: "patch-../../x"},
			want:   `"patch-../../x" is not a patch name: patches are files named patch-<id>.yaml, named without the extension (patch-001)`,
		},
		{
			name:   "unknown patch lists the component's patches",
			config: realConfig,
			files:  with(patchesAt("integration"), map[string]string{patchFile("stage/stage-sector-1", "patch-002"): testPatch}),
			opts:   Options{Patch: "patch-003.yaml"},
			want:   `unknown patch "patch-003" of management-cluster/test-app (one of: patch-001, patch-002)`,
		},
		{
			name:   "--level with an unknown dimension",
			config: realConfig,
			files:  patchesAt("integration"),
			opts:   Options{Level: "zones"},
			want:   `--level: unknown dimension "zones" (one of: regions, sectors, environments)`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := prepare(t, newFleet(t, tt.config, tt.files), tt.opts)
			if err == nil {
				t.Fatalf("Prepare succeeded: %v, want\n%s", opList(p), tt.want)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRefusalWritesNothing: a refused promotion leaves the tree as it was
// (everything is decided before the first write).
func TestRefusalWritesNothing(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, realConfig, map[string]string{
		patchFile("integration/int-sector-1/us-central1", "patch-001"): patchWith("2.0.0"),
		appDir + "/integration/int-sector-1/us-central1/override.yaml": overrideWith,
	})
	before := readTree(t, dir)
	if _, err := prepare(t, loadDir(t, dir), Options{}); err == nil {
		t.Fatal("Prepare succeeded")
	}
	if diff := cmp.Diff(before, readTree(t, dir)); diff != "" {
		t.Errorf("tree changed (-before +after):\n%s", diff)
	}
}

// An override that a patch's copy already loses to is not in the way: the
// patch at prod-canary comes before the region's override both before and
// after the integration.
func TestOverrideThatAlreadyWinsDoesNotBlock(t *testing.T) {
	f := newFleet(t, realConfig, with(patchesAt("integration", "stage", "production"), map[string]string{
		appDir + "/production/prod-canary/us-east1/override.yaml": overrideWith,
	}))
	p := mustPrepare(t, f, Options{})
	if p.Integrated == "" {
		t.Fatalf("not integrated: %v", opList(p))
	}
}

// TestGates: entering a node marked promotion: manual, at any level, needs
// approval; the error is a *GateError naming the gates and the command that
// passes them, the same promotion (its --level included) with --approve.
func TestGates(t *testing.T) {
	regionGate := strings.Replace(seedConfig, "            - name: europe-west1\n        - name: int-sector-2",
		"            - name: europe-west1\n              promotion: manual\n        - name: int-sector-2", 1)
	tests := []struct {
		name      string
		config    string
		locations []string
		level     string
		gates     []string
		command   string
	}{
		{"an environment", seedConfig, []string{"integration"}, "", []string{"stage"},
			"strata promote management-cluster test-app patch-001"},
		{"an environment and a sector", seedConfig, []string{"integration", "stage", "production/prod-canary"}, "",
			[]string{"production/prod-sector-1"}, "strata promote management-cluster test-app patch-001"},
		{"a region", regionGate, []string{"integration/int-sector-1/us-central1"}, "", []string{"integration/int-sector-1/europe-west1"},
			"strata promote management-cluster test-app patch-001"},
		{"an environment, promoting regions", seedConfig, []string{"integration"}, "regions", []string{"stage"},
			"strata promote management-cluster test-app patch-001 --level regions"},
		{"an environment, promoting environments", seedConfig, []string{"integration"}, "environment", []string{"stage"},
			"strata promote management-cluster test-app patch-001 --level environment"},
		{"an environment and a sector below it, promoting environments", seedConfig, []string{"integration", "stage"}, "environments",
			[]string{"production", "production/prod-sector-1"}, "strata promote management-cluster test-app patch-001 --level environments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFleet(t, tt.config, patchesAt(tt.locations...))
			_, err := prepare(t, f, Options{Level: tt.level})
			var gate *GateError
			if !errors.As(err, &gate) {
				t.Fatalf("Prepare: %v, want a *GateError", err)
			}
			if diff := cmp.Diff(tt.gates, gate.Gates); diff != "" {
				t.Errorf("gates (-want +got):\n%s", diff)
			}
			want := `promotion enters the manual gate "` + strings.Join(tt.gates, `", "`) + `"; approve it with: ` + tt.command + " --approve"
			if len(tt.gates) > 1 {
				want = `promotion enters the manual gates "` + strings.Join(tt.gates, `", "`) + `"; approve them with: ` + tt.command + " --approve"
			}
			if err.Error() != want {
				t.Errorf("error:\n  got  %s\n  want %s", err, want)
			}
			p, err := prepare(t, f, Options{Level: tt.level, Approve: true})
			if err != nil {
				t.Fatalf("with --approve: %v", err)
			}
			if diff := cmp.Diff(tt.gates, p.Gates); diff != "" {
				t.Errorf("gates passed (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLevel: --level sets the shallowest depth a promotion lands at: the
// patch goes to the next node in walk order that is at that level or
// deeper and not covered yet. Plural and singular names both work, and
// config promotion.level sets the default.
func TestLevel(t *testing.T) {
	levelConfig := strings.Replace(seedConfig, "# Cluster type definitions", "promotion:\n  level: regions\n\n# Cluster type definitions", 1)
	tests := []struct {
		name      string
		config    string
		locations []string
		level     string
		want      step
	}{
		{"regions: from an environment to the next environment's first region", seedConfig, []string{"integration"}, "regions", step{
			Target: "stage/stage-sector-1/us-east1", Next: "stage/stage-sector-1/europe-west1",
			Ops: []string{w("stage/stage-sector-1/us-east1")}}},
		{"region (singular) is the same dimension", seedConfig, []string{"integration"}, "region", step{
			Target: "stage/stage-sector-1/us-east1", Next: "stage/stage-sector-1/europe-west1",
			Ops: []string{w("stage/stage-sector-1/us-east1")}}},
		{"regions: a single-region sector is coalesced at once", seedConfig, []string{"integration/int-sector-1"}, "regions", step{
			Target: "integration/int-sector-2/us-central1", Coalesced: []string{"integration"}, Next: "stage/stage-sector-1/us-east1",
			Ops: []string{w("integration"), rm("integration/int-sector-1")}}},
		{"config promotion.level is the default", levelConfig, []string{"integration"}, "", step{
			Target: "stage/stage-sector-1/us-east1", Next: "stage/stage-sector-1/europe-west1",
			Ops: []string{w("stage/stage-sector-1/us-east1")}}},
		{"--level wins over config promotion.level", levelConfig, []string{"integration"}, "sectors", step{
			Target: "stage/stage-sector-1", Next: "stage/stage-sector-2",
			Ops: []string{w("stage/stage-sector-1")}}},
		{"environments: from an environment to the whole next one", seedConfig, []string{"integration"}, "environments", step{
			Target: "stage", Next: "production",
			Ops: []string{w("stage")}}},
		{"environments: the last environment integrates", seedConfig, []string{"integration", "stage"}, "environments", step{
			Target: "production", Integrated: true,
			Ops: []string{"write " + valuesPath, "write " + historyPath, rm("integration"), rm("stage")}}},
		// From a region, the next node in walk order is the next region:
		// walk order reaches a sector's regions before the next sector.
		{"environments: from a region to the next region", seedConfig, []string{"integration/int-sector-1/us-central1"}, "environments", step{
			Target: "integration/int-sector-1/europe-west1", Coalesced: []string{"integration/int-sector-1"}, Next: "integration/int-sector-2",
			Ops: []string{w("integration/int-sector-1"), rm("integration/int-sector-1/us-central1")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFleet(t, tt.config, patchesAt(tt.locations...))
			p := mustPrepare(t, f, Options{Level: tt.level, Approve: true})
			if diff := cmp.Diff(tt.want, summary(p)); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
		})
	}
}
