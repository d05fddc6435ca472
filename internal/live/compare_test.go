package live_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/live"
)

// argoApplied is a rendered spec as Argo CD applies it for cluster mc-int:
// the templates left in it resolved with the root's values.
func argoApplied(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = argoApplied(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = argoApplied(e)
		}
		return out
	case string:
		return strings.NewReplacer("{{ .Values.cluster.name }}", "mc-int", `{{ .Values.cluster.revision | default "main" }}`, "main").Replace(x)
	}
	return v
}

// TestCompare: diff --live against a real API server. mc-int's Argo CD
// holds cert-manager changed by hand (another targetRevision, a field Git
// does not have), prometheus as rendered but degraded, hypershift as
// rendered and healthy, and an Application nothing renders; the other two
// Argo CDs cannot be reached. Labels, annotations and finalizers that Argo
// CD and the API server add are not differences.
func TestCompare(t *testing.T) {
	fx := newFixture(t)
	a := startArgoCDs(t)
	const ns = "argocd"
	a.namespace(t, ns)
	dir := "rendered/management-cluster/integration/int-sector-1/us-central1"
	spec := func(name string) map[string]any {
		return argoApplied(fx.renderedSpec(t, dir+"/templates/"+name+".yaml")).(map[string]any)
	}
	cluster := map[string]any{"name": "mc-int", "environment": "integration", "sector": "int-sector-1", "region": "us-central1", "revision": "main"}
	root := application("root", map[string]any{"project": "default",
		"source":      map[string]any{"repoURL": "https://git.example.com/fleet", "path": dir, "targetRevision": "main", "helm": map[string]any{"valuesObject": map[string]any{"cluster": cluster}}},
		"destination": map[string]any{"server": "https://kubernetes.default.svc", "namespace": "argocd"}},
		status{sync: "Synced", health: "Healthy", revision: fx.c2, phase: "Succeeded"})

	certManager := spec("cert-manager")
	certManager["source"].(map[string]any)["targetRevision"] = "v1.19.0-hotfix"
	certManager["ignoreDifferences"] = []any{map[string]any{"group": "apps", "kind": "Deployment", "jsonPointers": []any{"/spec/replicas"}}}
	cm := application("cert-manager", certManager, status{sync: "OutOfSync", health: "Healthy", revision: "v1.19.0-hotfix",
		resources: []map[string]any{{"group": "apps", "kind": "Deployment", "namespace": "cert-manager", "name": "cert-manager", "status": "OutOfSync", "health": map[string]any{"status": "Healthy"}}}})
	prom := application("prometheus", spec("prometheus"), status{sync: "Synced", health: "Degraded", revision: "77.0.0",
		resources: []map[string]any{{"group": "apps", "kind": "StatefulSet", "namespace": "monitoring", "name": "prometheus", "status": "Synced",
			"health": map[string]any{"status": "Degraded", "message": "partitioned roll out complete: 0 new pods have been updated"}}}})
	hyp := application("hypershift", spec("hypershift"), status{sync: "Synced", health: "Healthy", revision: "main"})
	// The metadata strata renders, and what Argo CD and others add to it.
	for _, o := range []map[string]any{cm.Object, prom.Object, hyp.Object} {
		meta := o["metadata"].(map[string]any)
		rendered := fx.renderedDoc(t, dir+"/templates/"+meta["name"].(string)+".yaml")["metadata"].(map[string]any)
		annotations, _ := rendered["annotations"].(map[string]any)
		if annotations == nil {
			annotations = map[string]any{}
		}
		annotations["argocd.argoproj.io/tracking-id"] = "root:argoproj.io/Application:argocd/x"
		meta["labels"] = map[string]any{"app.kubernetes.io/instance": "root"}
		meta["annotations"] = annotations
		meta["finalizers"] = append(rendered["finalizers"].([]any), "post-delete-finalizer.argocd.argoproj.io")
	}
	create(t, a.dyn, ns, root, cm, prom, hyp, application("stray", spec("hypershift"), status{sync: "Synced", health: "Healthy"}))

	r := fx.renderer(t)
	rep, err := live.Load(context.Background(), fx.dir, r, a.connect("mc-int"), live.Options{Namespace: ns, Specs: true})
	if err != nil {
		t.Fatal(err)
	}
	d := live.Compare(fx.fsys(), r.Fleet, rep, nil)

	var got []string
	for _, c := range d.Cells {
		for _, o := range c.Objects {
			got = append(got, c.Target+" "+c.Component+": "+o.Name+" "+o.Sync+" "+o.Health)
		}
	}
	want := []string{
		"integration/int-sector-1/us-central1 cert-manager: cert-manager OutOfSync Healthy",
		"integration/int-sector-1/us-central1 prometheus: prometheus Synced Degraded",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("objects (-want +got):\n%s", diff)
	}
	cmo, promo := d.Cells[0].Objects[0], d.Cells[1].Objects[0]
	for _, line := range []string{
		"--- " + dir + "/templates/cert-manager.yaml\n",
		"+++ live/mc-int/Application/cert-manager\n",
		"-    targetRevision: v1.20.0\n",
		"+    targetRevision: v1.19.0-hotfix\n",
		"+  ignoreDifferences:\n",
	} {
		if !strings.Contains(cmo.Diff, line) {
			t.Errorf("cert-manager's diff lacks %q:\n%s", line, cmo.Diff)
		}
	}
	if strings.Contains(cmo.Diff, "tracking-id") || strings.Contains(cmo.Diff, "post-delete") {
		t.Errorf("cert-manager's diff shows metadata strata does not render:\n%s", cmo.Diff)
	}
	if len(cmo.Resources) != 1 || cmo.Resources[0].Status != "OutOfSync" {
		t.Errorf("cert-manager's resources: %+v, want its Deployment out of sync", cmo.Resources)
	}
	if promo.Diff != "" {
		t.Errorf("prometheus is as rendered, yet:\n%s", promo.Diff)
	}
	if len(promo.Resources) != 1 || promo.Resources[0].Message != "partitioned roll out complete: 0 new pods have been updated" {
		t.Errorf("prometheus's resources: %+v, want its StatefulSet with Argo CD's health message", promo.Resources)
	}
	if diff := cmp.Diff([]live.Unmapped{{ArgoCD: "mc-int", Kind: "Application", Name: "stray"}}, d.Unmapped); diff != "" {
		t.Errorf("unmapped (-want +got):\n%s", diff)
	}
	want1 := "1 of 3 live objects differ from rendered/; Argo CD reports 1 out of sync, 1 unhealthy; 1 unmapped; 2 Argo CDs unreachable"
	if got := d.Summary(); got != want1 {
		t.Errorf("summary:\n got %s\nwant %s", got, want1)
	}
	if !d.Differs() {
		t.Error("Differs() = false")
	}
}
