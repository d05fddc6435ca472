package live_test

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/testing/testenv"
)

// argoCDs is a real API server with Argo CD's CRDs that plays the Argo CDs
// of the tests, each in a namespace of its own.
type argoCDs struct {
	cfg  *rest.Config
	dyn  dynamic.Interface
	kube kubernetes.Interface
}

func startArgoCDs(t *testing.T) *argoCDs {
	api := testenv.StartAPIServer(t)
	testenv.InstallArgoCDCRDs(t, api.Config())
	a := &argoCDs{cfg: api.Config()}
	var err error
	if a.dyn, err = dynamic.NewForConfig(a.cfg); err != nil {
		t.Fatal(err)
	}
	if a.kube, err = kubernetes.NewForConfig(a.cfg); err != nil {
		t.Fatal(err)
	}
	return a
}

func (a *argoCDs) namespace(t *testing.T, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := a.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// connect reaches the clusters named in up, and fails for the others as an
// API server that does not answer fails.
func (a *argoCDs) connect(up ...string) live.Connect {
	return func(c *fleet.Cluster) (dynamic.Interface, error) {
		for _, u := range up {
			if u == c.Name {
				return live.ClientFor(a.cfg)
			}
		}
		cfg := rest.CopyConfig(a.cfg)
		cfg.Host = "https://127.0.0.1:1"
		cfg.Timeout = 5 * time.Second
		return dynamic.NewForConfig(cfg)
	}
}

// TestLoadDistributed: three clusters run their own Argo CD (the built-in
// chart, whose Applications keep their item's name); two of them are read
// from a real API server, one cannot be reached. Every state of a cell
// comes from what the Application objects say.
func TestLoadDistributed(t *testing.T) {
	fx := newFixture(t)
	a := startArgoCDs(t)
	// The two reachable Argo CDs share the API server: the test reads
	// mc-int's namespace first, then mc-stage's.
	const intNS, stageNS = "argocd-int", "argocd-stage"
	a.namespace(t, intNS)
	a.namespace(t, stageNS)

	dirInt := "rendered/management-cluster/integration/int-sector-1/us-central1"
	dirStage := "rendered/management-cluster/stage/stage-sector-1/us-east1"
	root := func(dir, cluster, rev string) *unstructured.Unstructured {
		spec := map[string]any{"project": "default",
			"source":      map[string]any{"repoURL": "https://git.example.com/fleet", "path": dir, "targetRevision": "main", "helm": map[string]any{"valuesObject": map[string]any{"cluster": map[string]any{"name": cluster}}}},
			"destination": map[string]any{"server": "https://kubernetes.default.svc", "namespace": "argocd"}}
		return application("root", spec, status{sync: "Synced", health: "Healthy", revision: rev, phase: "Succeeded"})
	}
	spec := func(dir, name string) map[string]any { return fx.renderedSpec(t, dir+"/templates/"+name+".yaml") }
	degraded := []map[string]any{{"group": "apps", "kind": "Deployment", "namespace": "monitoring", "name": "prometheus", "status": "Synced",
		"health": map[string]any{"status": "Degraded", "message": `Deployment "prometheus" exceeded its progress deadline`}}}
	outOfSync := []map[string]any{{"group": "apps", "kind": "Deployment", "namespace": "hypershift", "name": "operator", "status": "OutOfSync", "health": map[string]any{"status": "Healthy"}}}

	// mc-int: root synced at c1, which lacks c2's cert-manager change.
	create(t, a.dyn, intNS,
		root(dirInt, "mc-int", fx.c1),
		application("cert-manager", spec(dirInt, "cert-manager"), status{sync: "Synced", health: "Healthy", revision: "v1.19.0"}),
		application("prometheus", spec(dirInt, "prometheus"), status{sync: "Synced", health: "Degraded", healthMsg: "Deployment prometheus: 0/1 ready", revision: "65.0.0", resources: degraded}),
		application("hypershift", spec(dirInt, "hypershift"), status{sync: "OutOfSync", health: "Healthy", revision: fx.c1, resources: outOfSync}),
		application("stray", spec(dirInt, "prometheus"), status{sync: "Synced", health: "Healthy"}),
	)
	// mc-stage: root synced at c2; no prometheus; hypershift's sync failed;
	// cert-manager's status is of an earlier spec.
	create(t, a.dyn, stageNS,
		root(dirStage, "mc-stage", fx.c2),
		application("cert-manager", spec(dirStage, "cert-manager"), status{sync: "Synced", health: "Healthy", stale: true}),
		application("hypershift", spec(dirStage, "hypershift"), status{sync: "OutOfSync", health: "Missing", phase: "Failed",
			message: `one or more objects failed to apply, reason: Deployment.apps "operator" is invalid`}),
	)

	r := fx.renderer(t)
	expected, err := live.Expect(r.Fleet, r.Owners)
	if err != nil {
		t.Fatal(err)
	}
	h, err := live.ReadHistory(fx.dir, "rendered")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// Pages of two objects: several list calls per Argo CD.
	read := func(ns string) []*live.Instance {
		return live.Read(ctx, r.Fleet, a.connect("mc-int", "mc-stage"), live.Options{Namespace: ns, PageSize: 2})
	}
	var instances []*live.Instance
	for _, in := range read(intNS) {
		if in.Cluster != "mc-stage" {
			instances = append(instances, in)
		}
	}
	for _, in := range read(stageNS) {
		if in.Cluster == "mc-stage" {
			instances = append(instances, in)
		}
	}
	sort.Slice(instances, func(i, j int) bool { return instances[i].Cluster < instances[j].Cluster })
	// A client that is not a live.Client reads the same through the
	// dynamic client's maps, specs kept or not; a watch reads each
	// Application as a list does without specs.
	for _, ns := range []string{intNS, stageNS} {
		for _, specs := range []bool{true, false} {
			opts := live.Options{Namespace: ns, Specs: specs}
			fast := live.Read(ctx, r.Fleet, a.connect("mc-int"), opts)
			slow := live.Read(ctx, r.Fleet, func(*fleet.Cluster) (dynamic.Interface, error) { return a.dyn, nil }, opts)
			// Each list carries the store's revision when it was served,
			// which the API server's own writes (leases) move between the
			// two.
			if fast[1].ResourceVersion == "" || slow[1].ResourceVersion == "" {
				t.Errorf("%s: a list without a resource version: %q, %q", ns, fast[1].ResourceVersion, slow[1].ResourceVersion)
			}
			if diff := cmp.Diff(fast[1], slow[1], cmpopts.IgnoreFields(live.Instance{}, "ResourceVersion")); diff != "" {
				t.Errorf("%s, specs %v: the list's JSON and the dynamic client's maps read differently (-JSON +maps):\n%s", ns, specs, diff)
			}
			if !specs {
				if diff := cmp.Diff(fast[1].Applications, watched(t, a.dyn, ns, len(fast[1].Applications))); diff != "" {
					t.Errorf("%s: a watch reads Applications unlike a list without specs (-list +watch):\n%s", ns, diff)
				}
			}
		}
	}
	rep := live.Join(r.Fleet, expected, instances, h)

	want := []string{
		"integration/int-sector-1/us-central1 cert-manager: waiting (Argo CD has not synced the change yet) commit c2 contains false",
		"integration/int-sector-1/us-central1 hypershift: out of sync (out of sync: Deployment hypershift/operator) commit c1 contains true",
		"integration/int-sector-1/us-central1 prometheus: degraded (Deployment prometheus: 0/1 ready; unhealthy: Deployment monitoring/prometheus (Deployment \"prometheus\" exceeded its progress deadline)) commit c1 contains true",
		"stage/stage-sector-1/us-east1 cert-manager: waiting (Argo CD has not compared the new spec yet) commit c1 contains true",
		`stage/stage-sector-1/us-east1 hypershift: failed (sync failed: one or more objects failed to apply, reason: Deployment.apps "operator" is invalid) commit c1 contains true`,
		"stage/stage-sector-1/us-east1 prometheus: missing (root Application root deployed " + fx.c2[:12] + ", which contains " + fx.c1[:12] + ", but Argo CD has no Application prometheus) commit c1 contains true",
		"production/prod-canary/us-east1 cert-manager: unreachable",
		"production/prod-canary/us-east1 hypershift: unreachable",
		"production/prod-canary/us-east1 prometheus: unreachable",
	}
	if diff := cmp.Diff(want, fx.describe(rep)); diff != "" {
		t.Errorf("cells (-want +got):\n%s", diff)
	}
	down := instances[0]
	if down.Cluster != "mc-down" || !strings.Contains(down.Error, "127.0.0.1:1") {
		t.Errorf("mc-down: error %q, want the connection's", down.Error)
	}
	if diff := cmp.Diff([]live.Unmapped{{ArgoCD: "mc-int", Kind: "Application", Name: "stray"}}, rep.Unmapped); diff != "" {
		t.Errorf("unmapped (-want +got):\n%s", diff)
	}
	var missing []string
	for _, m := range rep.Missing {
		missing = append(missing, m.Cluster+"/"+m.Name)
	}
	if diff := cmp.Diff([]string{"mc-stage/prometheus"}, missing); diff != "" {
		t.Errorf("missing (-want +got):\n%s", diff)
	}

	// The root of mc-int syncs c2: cert-manager is healthy.
	instances[1].Applications[indexOf(t, instances[1], "root")].Revision = fx.c2
	rep = live.Join(r.Fleet, expected, instances, h)
	if got := fx.describe(rep)[0]; got != "integration/int-sector-1/us-central1 cert-manager: healthy commit c2 contains true" {
		t.Errorf("after the root synced c2: %s", got)
	}

	// Argo CD retries the failed sync: its operation is Running again,
	// with the failure's message and a retry count.
	hs := &instances[2].Applications[indexOf(t, instances[2], "hypershift")]
	hs.Phase, hs.Retries, hs.Message = "Running", 2, `one or more objects failed to apply. Retrying attempt #2 at 3:04PM.`
	rep = live.Join(r.Fleet, expected, instances, h)
	if got := fx.describe(rep)[4]; got != "stage/stage-sector-1/us-east1 hypershift: failed (sync failed, Argo CD retries it: one or more objects failed to apply. Retrying attempt #2 at 3:04PM.) commit c1 contains true" {
		t.Errorf("a sync Argo CD retries: %s", got)
	}

	// A rendered file changed and not committed: not committed.
	write(t, fx.dir, dirInt+"/templates/prometheus.yaml", "changed: true\n")
	if h, err = live.ReadHistory(fx.dir, "rendered"); err != nil {
		t.Fatal(err)
	}
	rep = live.Join(r.Fleet, expected, instances, h)
	if got := fx.describe(rep)[2]; got != "integration/int-sector-1/us-central1 prometheus: not committed (its rendered file differs from HEAD) commit c1 contains <nil>" {
		t.Errorf("after changing a rendered file: %s", got)
	}
}

func indexOf(t *testing.T, in *live.Instance, name string) int {
	for i, a := range in.Applications {
		if a.Name == name {
			return i
		}
	}
	t.Fatalf("%s has no Application %s", in.Cluster, name)
	return -1
}

// describe is one line per cell: target, component, state, reason, the
// commit of its last change and whether the root's revision contains it.
func (fx *fixture) describe(rep *live.Report) []string {
	var out []string
	for _, c := range rep.Cells {
		for _, a := range c.Apps {
			s := fmt.Sprintf("%s %s: %s", c.Target, c.Component, a.State)
			if a.State == live.Unreachable {
				out = append(out, s)
				continue
			}
			if a.Reason != "" {
				s += " (" + a.Reason + ")"
			}
			commit := map[string]string{fx.c1: "c1", fx.c2: "c2"}[a.Commit]
			contains := "<nil>"
			if a.Contains != nil {
				contains = fmt.Sprint(*a.Contains)
			}
			out = append(out, s+" commit "+commit+" contains "+contains)
		}
	}
	return out
}

// watched are the n Applications a watch of namespace ns from resource
// version 0 (the API server's Added events for what it holds) hands on,
// in the order of their names.
func watched(t *testing.T, dyn dynamic.Interface, ns string, n int) []live.App {
	t.Helper()
	var apps []live.App
	_, err := live.Watch(context.Background(), dyn, ns, "0", func(ev live.Event) bool {
		apps = append(apps, ev.App)
		return len(apps) < n
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(apps, func(a, b live.App) int { return strings.Compare(a.Name, b.Name) })
	return apps
}
