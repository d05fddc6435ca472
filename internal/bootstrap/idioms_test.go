package bootstrap_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/strata-fleet/strata/internal/bootstrap"
	"github.com/strata-fleet/strata/internal/fleet"
)

// The seeds' idioms, mapped onto strata's model, one test each, on the
// examples.

func renderedObject(t *testing.T, example, path string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal(renderedFile(t, example, path), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func nested(t *testing.T, m map[string]any, path ...string) any {
	t.Helper()
	v, ok, err := unstructured.NestedFieldNoCopy(m, path...)
	if err != nil || !ok {
		t.Fatalf("%s: not found (%v)", strings.Join(path, "."), err)
	}
	return v
}

// Seed 001's enable toggles: enabled: false at any level of the hierarchy
// removes an application from the targets under it.
func TestIdiomEnabledFalse(t *testing.T) {
	const ex = "seed-001-hub"
	for path, want := range map[string]bool{
		"platform/ops/ops-01/templates/ops-01-kyverno.yaml":                  false, // off: values.ops-01.yaml does not enable it
		"platform/prod/prod-01/templates/prod-01-kyverno.yaml":               true,
		"platform/ops/ops-01/templates/ops-01-redis.yaml":                    false,
		"platform/staging/stag-01/templates/stag-01-redis.yaml":              true,
		"platform/dev/dev-01/templates/dev-01-sealed-secrets.yaml":           true,
		"platform/ops/ops-01/templates/ops-01-cert-manager.yaml":             true,
		"platform/dev/dev-01/templates/dev-01-nginx-ingress-controller.yaml": false, // enabled nowhere: no component
	} {
		if got := exists(ex, path); got != want {
			t.Errorf("%s exists = %v, want %v", path, got, want)
		}
	}
	// Seed 002: the hub's components are on for the platform tenant only.
	for path, want := range map[string]bool{
		"hub/platform/prod/fleet-hub/templates/monitoring-release1.yaml":           true,
		"hub/tenant1/prod/spoke-prod-workload1/templates/monitoring-release1.yaml": false,
	} {
		if got := exists("seed-002-tenants", path); got != want {
			t.Errorf("seed-002-tenants %s exists = %v, want %v", path, got, want)
		}
	}
}

// Seed 001's sync waves: the annotation ADR-006's chart sets orders
// sealed-secrets, external-dns and cert-manager, envoy-gateway.
func TestIdiomSyncWave(t *testing.T) {
	want := map[string]string{"sealed-secrets": "-5", "external-dns": "-3", "cert-manager": "-3", "envoy-gateway": "-2"}
	for comp, wave := range want {
		m := renderedObject(t, "seed-001-hub", "platform/prod/prod-01/templates/prod-01-"+comp+".yaml")
		if got := nested(t, m, "metadata", "annotations", "argocd.argoproj.io/sync-wave"); got != wave {
			t.Errorf("%s: sync-wave = %v, want %q", comp, got, wave)
		}
	}
}

// Seeds 001 and 002: per-cluster values, through a dimension whose nodes are
// the clusters, named revisions and cluster facts.
func TestIdiomPerClusterValues(t *testing.T) {
	replicas := func(ex, path, field string) any {
		return nested(t, renderedObject(t, ex, path), "spec", "source", "helm", "valuesObject", field)
	}
	// Seed 001: each cluster's components at the revision its node names
	// (the named revision components) and sent to its API server (a fact
	// of the inventory; ops-01, Argo CD's own cluster, in-cluster).
	for path, want := range map[string][2]string{
		"platform/prod/prod-01/templates/prod-01-cert-manager.yaml":    {"stable", "https://prod-01-k8s.endpoint.kubernetes"},
		"platform/ops/ops-01/templates/ops-01-cert-manager.yaml":       {"stable", "https://kubernetes.default.svc"},
		"platform/staging/stag-01/templates/stag-01-cert-manager.yaml": {"staging", "https://stag-01-k8s.endpoint.kubernetes"},
		"platform/dev/dev-01/templates/dev-01-cert-manager.yaml":       {"master", "https://dev-01-k8s.endpoint.kubernetes"},
	} {
		m := renderedObject(t, "seed-001-hub", path)
		got := [2]string{nested(t, m, "spec", "source", "targetRevision").(string), nested(t, m, "spec", "destination", "server").(string)}
		if got != want {
			t.Errorf("seed-001-hub %s: targetRevision, server = %q, want %q", path, got, want)
		}
	}
	for path, want := range map[string]any{
		"spoke/tenant1/prod/spoke-prod-workload1/templates/spoke-prod-workload1-workload.yaml": float64(6), // the cluster's override
		"spoke/tenant1/dev/spoke-dev-workload1/templates/spoke-dev-workload1-workload.yaml":    float64(1),
		"spoke/tenant2/prod/spoke-t2-prod/templates/spoke-t2-prod-workload.yaml":               float64(1),
	} {
		if got := replicas("seed-002-tenants", path, "replicaCount"); got != want {
			t.Errorf("seed-002-tenants %s: replicaCount = %v, want %v", path, got, want)
		}
	}
}

// Seed 000's commit pinning, as openshift-online/rosa-regional-platform
// does it: the charts pinned per shard (config_revision, here the named
// revision charts of the node), the values live at the branch. The
// rendered root ApplicationSet of a pinned target reads the chart
// directories and the charts at the pin and the values at the cluster's
// git_revision; an unpinned target reads all three at git_revision. The
// root objects follow the branch and never name a pin: the pin is in the
// rendered tree, so that strata pin and a commit move the cluster without
// bootstrapping it again.
func TestIdiomPins(t *testing.T) {
	const ex = "seed-000-regional"
	const live = "{{ .metadata.annotations.git_revision }}"
	for path, charts := range map[string]string{
		"management-cluster/integration/us-east-1": live,
		"regional-cluster/integration/eu-west-1":   live,
		"management-cluster/staging/eu-west-1":     "826fa76d08fc2ce87c863196e52d5a4fa9259a82",
		"regional-cluster/staging/eu-west-1":       "826fa76d08fc2ce87c863196e52d5a4fa9259a82",
	} {
		objs := argoView(t, loadExample(t, ex), exampleChart(t, ex), clusterAt(t, loadExample(t, ex), path))
		set := objs["root-applicationset"].Object
		sources := nested(t, set, "spec", "template", "spec", "sources").([]any)
		chart, values := sources[0].(map[string]any), sources[1].(map[string]any)
		gen := nested(t, set, "spec", "generators").([]any)[0].(map[string]any)
		git := nested(t, gen, "matrix", "generators").([]any)[1].(map[string]any)
		if got := nested(t, git, "git", "revision"); got != charts {
			t.Errorf("%s: chart directories read at %v, want %s", path, got, charts)
		}
		if chart["targetRevision"] != charts || values["targetRevision"] != live {
			t.Errorf("%s: chart at %v, values at %v; want the chart at %s, the values at %s", path, chart["targetRevision"], values["targetRevision"], charts, live)
		}
	}
	f, chart := loadExample(t, ex), exampleChart(t, ex)
	for _, cluster := range []string{"mc-use1-int-1", "mc-euw1-stg-1"} {
		b, err := bootstrap.Build(f, chart, cluster, bootstrap.Options{})
		if err != nil {
			t.Fatal(err)
		}
		root, secret := b.Objects[2], b.Objects[1]
		gen := nested(t, root.Object, "spec", "generators").([]any)[0].(map[string]any)
		if got := nested(t, gen, "git", "revision"); got != "main" {
			t.Errorf("%s: the root reads Git at %v, want the branch main", cluster, got)
		}
		if got := secret.GetAnnotations()[bootstrap.RevisionAnnotation]; got != "main" {
			t.Errorf("%s: git_revision = %q, want the branch main", cluster, got)
		}
	}
}

// clusterAt returns the first cluster of the inventory that runs target
// (cluster type/node path).
func clusterAt(t *testing.T, f *fleet.Fleet, target string) *fleet.Cluster {
	t.Helper()
	for _, c := range f.Clusters {
		if c.Type+"/"+c.Target.ID() == target {
			return c
		}
	}
	t.Fatalf("no cluster runs %s", target)
	return nil
}

// Seed 002's named releases: a tenant, environment or cluster chooses the
// release of the fleet repository it runs with a pin, and the release of a
// component group with a label of its cluster secret, which the hub's
// per-release ApplicationSets select.
func TestIdiomNamedReleases(t *testing.T) {
	const ex = "seed-002-tenants"
	f, chart := loadExample(t, ex), exampleChart(t, ex)
	tests := []struct {
		cluster, revision, release string
	}{
		{"spoke-dev-workload1", "main", "default"},        // tenant1/dev: no pin
		{"spoke-prod-workload1", "release-1", "release1"}, // tenant1/prod pinned
		{"spoke-t2-prod", "release-2", "release1"},        // tenant2 pinned, the cluster ahead
	}
	for _, tt := range tests {
		b, err := bootstrap.Build(f, chart, tt.cluster, bootstrap.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var labels, annotations map[string]string
		switch s := b.Objects[0]; s.GetKind() {
		case "ExternalSecret":
			labels, _, _ = unstructured.NestedStringMap(s.Object, "spec", "target", "template", "metadata", "labels")
			annotations, _, _ = unstructured.NestedStringMap(s.Object, "spec", "target", "template", "metadata", "annotations")
		default:
			s = b.Objects[1]
			labels, annotations = s.GetLabels(), s.GetAnnotations()
		}
		c := f.Cluster(tt.cluster)
		pinned := nested(t, renderedObject(t, ex, c.Type+"/"+c.Target.ID()+"/values.yaml"), "cluster", "revision")
		if labels["monitoringRelease"] != tt.release || pinned != tt.revision || annotations["git_revision"] != "main" {
			t.Errorf("%s: release label %q at revision %q (secret: %q), want %q at %q (secret: main)", tt.cluster, labels["monitoringRelease"], pinned, annotations["git_revision"], tt.release, tt.revision)
		}
		objs := argoView(t, f, chart, f.Cluster(tt.cluster))
		if got := nested(t, objs[tt.cluster+"-workload"].Object, "spec", "source", "targetRevision"); got != tt.revision {
			t.Errorf("%s: workload at %v, want %s", tt.cluster, got, tt.revision)
		}
	}
	set := renderedObject(t, ex, "hub/platform/prod/fleet-hub/templates/monitoring-release1.yaml")
	gens := nested(t, set, "spec", "generators").([]any)
	sel, _, _ := unstructured.NestedStringMap(gens[0].(map[string]any), "clusters", "selector", "matchLabels")
	if diff := cmp.Diff(map[string]string{"monitoringRelease": "release1"}, sel); diff != "" {
		t.Errorf("monitoring-release1 selects (-want +got):\n%s", diff)
	}
}

// Seed 004: Argo CD manages its own configuration. The self-management
// Application bootstrap applies points at the cluster's Kustomize overlay in
// the repository, which builds (with the kustomize library) into that
// cluster's configuration.
func TestIdiomSelfManagedKustomize(t *testing.T) {
	const ex = "seed-004-self-managed"
	f, chart := loadExample(t, ex), exampleChart(t, ex)
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	want := map[string]map[string]string{ // cluster -> argocd-cm data checked
		"dev-cluster": {"url": "https://argocd.example.com", "timeout.reconciliation": "180s"},
		"dc11a":       {"url": "https://argocd.dc11a.prod.example.com", "cluster.name": "dc11a", "timeout.reconciliation": "300s"},
		"dc11b":       {"url": "https://argocd.dc11b.prod.example.com", "cluster.name": "dc11b", "timeout.reconciliation": "300s"},
	}
	for _, c := range f.Clusters {
		b, err := bootstrap.Build(f, chart, c.Name, bootstrap.Options{})
		if err != nil {
			t.Fatal(err)
		}
		self := b.Objects[len(b.Objects)-1]
		if self.GetName() != bootstrap.DefaultSelfApp || self.GetKind() != "Application" {
			t.Fatalf("%s: last object %s/%s, want the self-management Application", c.Name, self.GetKind(), self.GetName())
		}
		path := nested(t, self.Object, "spec", "source", "path").(string)
		res, err := k.Run(filesys.MakeFsOnDisk(), filepath.Join(exampleDir(ex), filepath.FromSlash(path)))
		if err != nil {
			t.Fatalf("%s: kustomize build %s: %v", c.Name, path, err)
		}
		got := map[string]map[string]string{}
		for _, r := range res.Resources() {
			if r.GetKind() == "ConfigMap" {
				data := r.GetDataMap()
				got[r.GetName()] = data
			}
			if r.GetNamespace() != "argocd" {
				t.Errorf("%s: %s %s in namespace %q, want argocd", c.Name, r.GetKind(), r.GetName(), r.GetNamespace())
			}
		}
		for key, value := range want[c.Name] {
			if got["argocd-cm"][key] != value {
				t.Errorf("%s (%s): argocd-cm %s = %q, want %q", c.Name, path, key, got["argocd-cm"][key], value)
			}
		}
		policy := map[string]string{"dev-cluster": "role:admin", "dc11a": "role:readonly", "dc11b": "role:readonly"}[c.Name]
		if got["argocd-rbac-cm"]["policy.default"] != policy {
			t.Errorf("%s: policy.default = %q, want %q", c.Name, got["argocd-rbac-cm"]["policy.default"], policy)
		}
	}
}
