//go:build linux

package e2e

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/strata-fleet/strata/internal/fleet"
)

// TestE2EModels: strata bootstrap --apply registers the hub (distributed
// model: the hub's Argo CD deploys the hub's own rendered/ directory) and two
// spokes (central model: cluster secrets on the hub and the hub's root
// ApplicationSet); the committed rendered/ tree makes, through Argo CD's
// ApplicationSet controller and its Helm render, one set of Applications per
// spoke whose double-templated values resolve to the spoke's name and its
// target's region; each spoke holds what its target says, nothing else.
func TestE2EModels(t *testing.T) {
	e := Start(t, Options{Spokes: []Spoke{
		{Name: "spoke-a", Target: "integration/int-sector-1/us-east1"},
		{Name: "spoke-b", Target: "integration/int-sector-1/eu-west1"},
	}})
	defer e.Done()
	mark := e.Mark()

	head := deploy(t, e)
	mark("render, validate, commit, bootstrap the hub and 2 spokes")
	e.Converge(Expect{Head: head, Apps: expectApps(e), State: expectState(e, allAt(e, "1.0.0"))})
	mark("Argo CD: from bootstrap to every cluster synced")

	ctx, cancel := e.ctx()
	defer cancel()
	apps := e.Dyn.Resource(appGVR).Namespace(Namespace)

	// The spokes' cluster secrets carry what the ApplicationSets select
	// and template: the cluster type, the dimensions, the hub.
	for _, s := range e.Spokes {
		sec, err := e.Hub.Kube.CoreV1().Secrets(Namespace).Get(ctx, s.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("the cluster secret of %s on the hub: %v", s.Name, err)
		}
		want := map[string]string{
			fleet.SecretTypeLabel: "cluster", fleet.ClusterTypeLabel: "spoke", fleet.HubLabel: HubName,
			"environment": env(s.Target), "sector": strings.Split(s.Target, "/")[1], "region": region(s.Target),
		}
		for k, v := range want {
			if got := sec.Labels[k]; got != v {
				t.Errorf("secret %s: label %s = %q, want %q", s.Name, k, got, v)
			}
		}
		if got := string(sec.Data["server"]); got != s.API.URL {
			t.Errorf("secret %s: server %q, want %q", s.Name, got, s.API.URL)
		}

		// The demo Application, rendered by strata for the spoke's target
		// and by Argo CD's Helm for the spoke: its destination is the
		// spoke, by name.
		demo, err := apps.Get(ctx, appName(s.Target, "demo"), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		checkField(t, demo, s.Name, "spec", "destination", "name")
		checkField(t, demo, s.Name, "spec", "source", "helm", "valuesObject", "cluster", "name")
		checkField(t, demo, region(s.Target), "spec", "source", "helm", "valuesObject", "cluster", "region")
		checkField(t, demo, "main", "spec", "source", "targetRevision")

		// The info Application, made by the ApplicationSet that strata
		// rendered for the hub: three template engines resolved.
		info, err := apps.Get(ctx, s.Name+"-info", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		checkField(t, info, s.API.URL, "spec", "destination", "server")
		checkField(t, info, region(s.Target), "spec", "source", "helm", "valuesObject", "cluster", "region")
		checkField(t, info, hubRegion, "metadata", "labels", "hub-region")
	}
	// The hub's own Application goes to the hub, in-cluster, by the name
	// of its identity secret.
	hubDemo, err := apps.Get(ctx, appName(e.Hub.Target, "hub-demo"), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkField(t, hubDemo, HubName, "spec", "destination", "name")
	mark("check the generated Applications")
}

func checkField(t *testing.T, u *unstructured.Unstructured, want string, fields ...string) {
	t.Helper()
	got, _, err := unstructured.NestedString(u.Object, fields...)
	if err != nil || got != want {
		t.Errorf("%s %s: %s = %q (%v), want %q", u.GetKind(), u.GetName(), strings.Join(fields, "."), got, err, want)
	}
}
