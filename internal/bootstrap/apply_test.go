package bootstrap_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/strata-fleet/strata/internal/bootstrap"
	"github.com/strata-fleet/strata/internal/testing/testenv"
)

// TestApply applies bootstrap bundles to a real kube-apiserver: Argo CD
// installed with the Helm library from a local chart (its CRDs come from the
// argo-cd module), then a cluster's bundle created, re-applied unchanged,
// changed, and read back; then a spoke registered with the credentials of a
// kubeconfig context, and again in a project, whose AppProject comes first.
func TestApply(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping under -short: starts etcd and kube-apiserver (built by " + testenv.BuildScript + ") and installs Argo CD's CRDs")
	}
	s := testenv.StartAPIServer(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	ap, err := bootstrap.NewApplier(s.Config())
	if err != nil {
		t.Fatal(err)
	}
	f := loadExample(t, "seed-000-regional")
	b, err := bootstrap.Build(f, exampleChart(t, "seed-000-regional"), "mc-euw1-stg-1", bootstrap.Options{})
	if err != nil {
		t.Fatal(err)
	}

	t.Run("without Argo CD the error says to install it", func(t *testing.T) {
		_, err := ap.Apply(ctx, b.Objects[2:3])
		if !bootstrap.IsMissingKind(err) {
			t.Fatalf("Apply = %v, want a missing kind error", err)
		}
		want := "applying ApplicationSet/argocd/root: the API server has no kind ApplicationSet (argoproj.io/v1alpha1): install Argo CD first, or give --install-argocd CHART"
		if err.Error() != want {
			t.Errorf("error = %q\nwant %q", err, want)
		}
	})

	getter := bootstrap.KubeGetter(s.Kubeconfig, testenv.ContextName, "argocd")
	install := bootstrap.InstallOptions{Chart: testenv.FakeArgoCDChart(t), Getter: getter, Timeout: 2 * time.Minute}
	t.Run("installs Argo CD from a local chart, once", func(t *testing.T) {
		res, err := bootstrap.InstallArgoCD(ctx, install)
		if err != nil {
			t.Fatal(err)
		}
		if res.Action != bootstrap.Installed || res.Detail != "argo-cd 9.1.0" {
			t.Errorf("first install = %+v, want installed argo-cd 9.1.0", res)
		}
		res, err = bootstrap.InstallArgoCD(ctx, install)
		if err != nil {
			t.Fatal(err)
		}
		if res.Action != bootstrap.Skipped {
			t.Errorf("second install = %+v, want skipped", res)
		}
		cm, err := dynamic.NewForConfigOrDie(s.Config()).Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).
			Namespace("argocd").Get(ctx, "argocd-cm", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("the chart's ConfigMap: %v", err)
		}
		if got := cm.GetLabels()["app.kubernetes.io/managed-by"]; got != "Helm" {
			t.Errorf("argocd-cm managed by %q, want Helm", got)
		}
	})

	t.Run("installs from a chart archive", func(t *testing.T) {
		ch, err := loader.Load(install.Chart)
		if err != nil {
			t.Fatal(err)
		}
		archive, err := chartutil.Save(ch, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		res, err := bootstrap.InstallArgoCD(ctx, bootstrap.InstallOptions{Chart: archive, ReleaseName: "argocd-copy", Namespace: "argocd-copy",
			Getter: bootstrap.KubeGetter(s.Kubeconfig, testenv.ContextName, "argocd-copy")})
		if err != nil {
			t.Fatal(err)
		}
		if res.Action != bootstrap.Installed {
			t.Errorf("install from %s = %+v, want installed", filepath.Base(archive), res)
		}
	})

	ap.WaitForKinds = time.Minute // the chart's CRDs are being established
	t.Run("first apply creates, the second changes nothing", func(t *testing.T) {
		wantActions(t, ctx, ap, b.Objects, map[string]bootstrap.Action{
			"Namespace/argocd":     bootstrap.Configured, // the Helm install created it; strata labels it
			"Secret/mc-euw1-stg-1": bootstrap.Created, "ApplicationSet/root": bootstrap.Created,
		})
		wantActions(t, ctx, ap, b.Objects, map[string]bootstrap.Action{
			"Namespace/argocd": bootstrap.Unchanged, "Secret/mc-euw1-stg-1": bootstrap.Unchanged,
			"ApplicationSet/root": bootstrap.Unchanged,
		})
		readBack(t, ctx, s.Config(), b.Objects)
	})

	t.Run("a change configures only what it changes", func(t *testing.T) {
		c := f.Cluster("mc-euw1-stg-1")
		if c.Labels == nil {
			c.Labels = map[string]string{}
		}
		c.Labels["tier"] = "gold"
		// The root reads the cluster's pin from rendered/ at the repository's
		// branch: a new branch changes it (a pin alone would not).
		f.Config.Repository.Revision = "release"
		b2, err := bootstrap.Build(f, exampleChart(t, "seed-000-regional"), "mc-euw1-stg-1", bootstrap.Options{})
		if err != nil {
			t.Fatal(err)
		}
		wantActions(t, ctx, ap, b2.Objects, map[string]bootstrap.Action{
			"Namespace/argocd": bootstrap.Unchanged, "Secret/mc-euw1-stg-1": bootstrap.Configured,
			"ApplicationSet/root": bootstrap.Configured,
		})
		readBack(t, ctx, s.Config(), b2.Objects)
	})

	t.Run("a spoke is registered with the credentials of a kubeconfig context", func(t *testing.T) {
		hf := hubFleet(t, s.URL)
		cr, err := bootstrap.CredentialsFromKubeconfig(s.Kubeconfig, testenv.ContextName)
		if err != nil {
			t.Fatal(err)
		}
		sb, err := bootstrap.Build(hf, nil, "spoke-1", bootstrap.Options{Credentials: cr})
		if err != nil {
			t.Fatal(err)
		}
		wantActions(t, ctx, ap, sb.Objects, map[string]bootstrap.Action{
			"Secret/spoke-1": bootstrap.Created, "ApplicationSet/root-workload": bootstrap.Created,
		})
		readBack(t, ctx, s.Config(), sb.Objects)
		secret := get(t, ctx, s.Config(), sb.Objects[0])
		data, _, _ := unstructured.NestedStringMap(secret.Object, "data")
		var cfg bootstrap.ClusterConfig
		raw, _ := base64.StdEncoding.DecodeString(data["config"])
		if err := json.Unmarshal(raw, &cfg); err != nil {
			t.Fatal(err)
		}
		if cfg.BearerToken != s.Token || string(cfg.TLSClientConfig.CAData) != string(s.CAData) {
			t.Errorf("the spoke's config holds token %q and CA %q, want those of the kubeconfig context", cfg.BearerToken, cfg.TLSClientConfig.CAData)
		}
		if server, _ := base64.StdEncoding.DecodeString(data["server"]); string(server) != s.URL {
			t.Errorf("server = %q, want %q", server, s.URL)
		}
	})

	t.Run("a root's AppProject is applied with it, before it", func(t *testing.T) {
		pf, chart := projectFleet(t, "", "default")
		cr := &bootstrap.Credentials{Config: bootstrap.ClusterConfig{BearerToken: "t0ken"}, Source: "test"}
		pb, err := bootstrap.Build(pf, chart, "spoke-1", bootstrap.Options{Credentials: cr})
		if err != nil {
			t.Fatal(err)
		}
		results, err := ap.Apply(ctx, pb.Objects)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range results {
			got = append(got, r.String())
		}
		// spoke-1 was registered above: its secret now names its project.
		want := []string{"secret/spoke-1 configured", "appproject/tenant-a created", "applicationset/root-workload unchanged"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("results (-want +got):\n%s", diff)
		}
		readBack(t, ctx, s.Config(), pb.Objects)
		wantActions(t, ctx, ap, pb.Objects, map[string]bootstrap.Action{
			"Secret/spoke-1": bootstrap.Unchanged, "AppProject/tenant-a": bootstrap.Unchanged, "ApplicationSet/root-workload": bootstrap.Unchanged,
		})
	})
}

func wantActions(t *testing.T, ctx context.Context, ap *bootstrap.Applier, objs []*unstructured.Unstructured, want map[string]bootstrap.Action) {
	t.Helper()
	results, err := ap.Apply(ctx, objs)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bootstrap.Action{}
	for _, r := range results {
		got[r.Kind+"/"+r.Name] = r.Action
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("actions (-want +got):\n%s", diff)
	}
}

// readBack checks that the server holds what was applied: every field the
// objects set, read back equal.
func readBack(t *testing.T, ctx context.Context, cfg *rest.Config, objs []*unstructured.Unstructured) {
	t.Helper()
	for _, o := range objs {
		got := get(t, ctx, cfg, o)
		for _, field := range []string{"data", "spec", "type"} {
			if want, ok := o.Object[field]; ok {
				if diff := cmp.Diff(want, got.Object[field]); diff != "" {
					t.Errorf("%s %s: %s read back differs (-applied +read):\n%s", o.GetKind(), o.GetName(), field, diff)
				}
			}
		}
		if diff := cmp.Diff(o.GetLabels(), got.GetLabels()); diff != "" && o.GetKind() != "Namespace" {
			t.Errorf("%s %s: labels (-applied +read):\n%s", o.GetKind(), o.GetName(), diff)
		}
		if diff := cmp.Diff(o.GetAnnotations(), got.GetAnnotations()); diff != "" {
			t.Errorf("%s %s: annotations (-applied +read):\n%s", o.GetKind(), o.GetName(), diff)
		}
	}
}

var resources = map[string]schema.GroupVersionResource{
	"Namespace":      {Version: "v1", Resource: "namespaces"},
	"Secret":         {Version: "v1", Resource: "secrets"},
	"Application":    {Group: "argoproj.io", Version: "v1alpha1", Resource: "applications"},
	"ApplicationSet": {Group: "argoproj.io", Version: "v1alpha1", Resource: "applicationsets"},
	"AppProject":     {Group: "argoproj.io", Version: "v1alpha1", Resource: "appprojects"},
}

func get(t *testing.T, ctx context.Context, cfg *rest.Config, o *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	gvr, ok := resources[o.GetKind()]
	if !ok {
		t.Fatalf("no resource known for kind %s", o.GetKind())
	}
	var ri dynamic.ResourceInterface = dynamic.NewForConfigOrDie(cfg).Resource(gvr)
	if o.GetNamespace() != "" {
		ri = dynamic.NewForConfigOrDie(cfg).Resource(gvr).Namespace(o.GetNamespace())
	}
	got, err := ri.Get(ctx, o.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading back %s %s: %v", o.GetKind(), o.GetName(), err)
	}
	return got
}
