package bootstrap_test

import (
	"path/filepath"
	"strings"
	"testing"

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
	// Seed 002: the hub's components are on for the control plane only.
	for path, want := range map[string]bool{
		"hub/control-plane/np/hub-cluster-np/templates/hub-cluster-np-external-secrets.yaml": true,
		"spoke/tenant1/np/spoke-dev-workload1/templates/argocd.yaml":                         false, // managed by the hub
		"spoke/tenant1/live/spoke-live-workload1/templates/argocd.yaml":                      true,  // its own Argo CD
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
	// Seed 002: the value files of the repository's tree, tenant ->
	// environment -> cluster, and the cluster's facts.
	m := renderedObject(t, "seed-002-tenants", "spoke/tenant1/np/spoke-dev-workload1/templates/spoke-dev-workload1-external-dns.yaml")
	src := nested(t, m, "spec", "sources").([]any)[0].(map[string]any)
	files, _, _ := unstructured.NestedStringSlice(src, "helm", "valueFiles")
	if want := "$values/addons/tenants/tenant1/environments/np/clusters/spoke-dev-workload1/addons/external-dns/values.yaml"; len(files) != 4 || files[3] != want {
		t.Errorf("seed-002-tenants external-dns value files %q, want the cluster's last: %s", files, want)
	}
	if got := nested(t, src, "helm", "valuesObject", "aws", "region"); got != "us-west-2" {
		t.Errorf("seed-002-tenants external-dns region %v, want the cluster's annotation us-west-2", got)
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

// Seed 002's named releases: each cluster chooses the release of a group
// of addons by a label of its inventory file (its Secret's label in the
// repository); the group's value files are read there. The root follows
// the branch.
func TestIdiomNamedReleases(t *testing.T) {
	const ex = "seed-002-tenants"
	f, chart := loadExample(t, ex), exampleChart(t, ex)
	tests := []struct {
		cluster, addons, monitoring string
	}{
		{"spoke-dev-workload1", "main", "main"},
		{"spoke-live-workload1", "addons-v1.2.0", "main"}, // its label addonsRelease
	}
	for _, tt := range tests {
		c := f.Cluster(tt.cluster)
		objs := argoView(t, f, chart, c)
		for comp, want := range map[string]string{"external-dns": tt.addons, "metrics-server": tt.addons, "adot-collector": tt.monitoring} {
			sources := nested(t, objs[tt.cluster+"-"+comp].Object, "spec", "sources").([]any)
			values := sources[len(sources)-1].(map[string]any)
			if values["ref"] != "values" || values["targetRevision"] != want {
				t.Errorf("%s %s: value files at %v, want the group's release %s", tt.cluster, comp, values["targetRevision"], want)
			}
		}
		b, err := bootstrap.Build(f, chart, tt.cluster, bootstrap.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var annotations map[string]string
		switch s := b.Objects[0]; s.GetKind() {
		case "ExternalSecret":
			annotations, _, _ = unstructured.NestedStringMap(s.Object, "spec", "target", "template", "metadata", "annotations")
		default:
			annotations = b.Objects[1].GetAnnotations()
		}
		if annotations["git_revision"] != "main" {
			t.Errorf("%s: the Secret's git_revision %q, want the branch main", tt.cluster, annotations["git_revision"])
		}
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
