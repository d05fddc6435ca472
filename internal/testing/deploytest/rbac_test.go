package deploytest

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/runner"
	"github.com/strata-fleet/strata/internal/testing/testenv"
	"github.com/strata-fleet/strata/internal/webhook"
)

var (
	leaseGVR  = schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}
	secretGVR = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	podGVR    = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
)

// TestChartRBAC: the chart's objects applied to a real API server; with a
// token of its ServiceAccount the runner reads and watches Argo CD's
// Applications, refreshes one, and elects a leader through the Lease with
// a second runner, which takes over when the first stops; a push webhook
// reaching the runner that stands by wakes the leader through the Lease;
// every step beyond the chart's RBAC is forbidden.
func TestChartRBAC(t *testing.T) {
	srv := testenv.StartAPIServer(t)
	admin := srv.Config()
	testenv.InstallArgoCDCRDs(t, admin)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cs := kubernetes.NewForConfigOrDie(admin)
	adm := dynamic.NewForConfigOrDie(admin)
	for _, ns := range []string{"strata", "argocd", "other"} {
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	out, err := render(t, valueSets["ssh"])
	if err != nil {
		t.Fatal(err)
	}
	applied := apply(ctx, t, adm, Manifest(out))
	if want := []string{"Deployment", "PodDisruptionBudget", "Role", "Role", "RoleBinding", "RoleBinding", "Service", "ServiceAccount"}; strings.Join(applied, " ") != strings.Join(want, " ") {
		t.Errorf("applied %v, want %v", applied, want)
	}
	for _, ns := range []string{"argocd", "other"} {
		if _, err := adm.Resource(live.ApplicationGVR).Namespace(ns).Create(ctx, application("demo"), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := adm.Resource(leaseGVR).Namespace("strata").Create(ctx, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": map[string]any{"name": "someone-else"}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	tok, err := cs.CoreV1().ServiceAccounts("strata").CreateToken(ctx, "strata",
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: new(int64(3600))}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sa := &rest.Config{Host: srv.URL, BearerToken: tok.Status.Token, TLSClientConfig: rest.TLSClientConfig{CAData: srv.CAData}}
	client, err := live.ClientFor(sa)
	if err != nil {
		t.Fatal(err)
	}
	dyn := dynamic.NewForConfigOrDie(sa)

	t.Run("reads the hub's Argo CD", func(t *testing.T) {
		in := live.ReadOne(ctx, &fleet.Cluster{Name: "hub"}, func(*fleet.Cluster) (dynamic.Interface, error) { return client, nil },
			live.Options{Namespace: "argocd", CallTimeout: 30 * time.Second})
		if in.Error != "" {
			t.Fatalf("reading Argo CD with the chart's ServiceAccount: %s", in.Error)
		}
		if len(in.Applications) != 1 || in.Applications[0].Name != "demo" {
			t.Errorf("read %+v, want the Application demo", in.Applications)
		}
		if _, err := dyn.Resource(live.ApplicationGVR).Namespace("argocd").Get(ctx, "demo", metav1.GetOptions{}); err != nil {
			t.Errorf("getting an Application: %v", err)
		}
		// The watch sees the refresh the runner asks (rollout's refresh.go
		// and the termination of a failed operation are this patch).
		seen := make(chan error, 1)
		go func() {
			_, err := live.Watch(ctx, client, "argocd", in.ResourceVersion, func(e live.Event) bool {
				return e.App.Meta.Annotations["argocd.argoproj.io/refresh"] != "normal"
			})
			seen <- err
		}()
		patch := []byte(`{"metadata":{"annotations":{"argocd.argoproj.io/refresh":"normal"}}}`)
		if _, err := dyn.Resource(live.ApplicationGVR).Namespace("argocd").Patch(ctx, "demo", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatalf("refreshing an Application: %v", err)
		}
		select {
		case err := <-seen:
			if err != nil {
				t.Fatalf("watching Applications: %v", err)
			}
		case <-ctx.Done():
			t.Fatal("the watch did not see the refresh")
		}
	})

	t.Run("elects one leader and hands over", func(t *testing.T) {
		leads := make(chan string, 4)
		seen := make(chan string, 16)
		lead := func(ctx context.Context, id string) chan error {
			done := make(chan error, 1)
			l := runner.Lease{Namespace: "strata", Name: "strata", Identity: id, Client: kubernetes.NewForConfigOrDie(sa),
				Duration: 3 * time.Second, Renew: 2 * time.Second, Retry: 300 * time.Millisecond, Release: true,
				Leader: func(who string) { seen <- id + " sees " + who }}
			go func() {
				done <- runner.Lead(ctx, l, nil, func(ctx context.Context) {
					leads <- id
					<-ctx.Done()
				})
			}()
			return done
		}
		ctxA, stopA := context.WithCancel(ctx)
		defer stopA()
		doneA := lead(ctxA, "a")
		await(t, leads, "a")
		ctxB, stopB := context.WithCancel(ctx)
		defer stopB()
		doneB := lead(ctxB, "b")
		await(t, seen, "b sees a") // b stands by, a leads
		stopA()
		if err := <-doneA; !errors.Is(err, context.Canceled) {
			t.Errorf("a ended with %v", err)
		}
		await(t, leads, "b")
		stopB()
		<-doneB
	})

	t.Run("a push to the standby wakes the leader", func(t *testing.T) {
		// Two runners as rollout --watch runs them: each has a webhook
		// whose signed push wakes its own fetch while it leads and is
		// handed on through the Lease while it stands by.
		type replica struct {
			lease   runner.Lease
			leading atomic.Bool
			woken   chan string
			hook    *httptest.Server
		}
		leads := make(chan string, 4)
		start := func(ctx context.Context, id string) (*replica, chan error) {
			r := &replica{woken: make(chan string, 16)}
			r.lease = runner.Lease{Namespace: "strata", Name: "strata", Identity: id, Client: kubernetes.NewForConfigOrDie(sa),
				Duration: 3 * time.Second, Renew: 2 * time.Second, Retry: 300 * time.Millisecond, Release: true,
				Pushed: func() { r.woken <- id + " woken by a relayed push" }}
			h, err := webhook.New([]byte("s3cret"), runner.PushWake(&r.lease, r.leading.Load, func() { r.woken <- id + " woken by its webhook" }),
				webhook.Options{})
			if err != nil {
				t.Fatal(err)
			}
			r.hook = httptest.NewServer(h)
			t.Cleanup(r.hook.Close)
			done := make(chan error, 1)
			go func() {
				done <- runner.Lead(ctx, r.lease, nil, func(ctx context.Context) {
					r.leading.Store(true)
					defer r.leading.Store(false)
					leads <- id
					<-ctx.Done()
				})
			}()
			return r, done
		}
		ctxA, stopA := context.WithCancel(ctx)
		defer stopA()
		a, doneA := start(ctxA, "a")
		await(t, leads, "a")
		ctxB, stopB := context.WithCancel(ctx)
		defer stopB()
		b, doneB := start(ctxB, "b")

		if code := pushTo(t, b.hook.URL, "d1"); code != http.StatusAccepted {
			t.Fatalf("the standby answered %d, want 202", code)
		}
		await(t, a.woken, "a woken by a relayed push")
		if code := pushTo(t, a.hook.URL, "d2"); code != http.StatusAccepted {
			t.Fatalf("the leader answered %d, want 202", code)
		}
		await(t, a.woken, "a woken by its webhook")
		select {
		case s := <-b.woken:
			t.Errorf("the standby fetched: %s", s)
		default:
		}
		lease, err := cs.CoordinationV1().Leases("strata").Get(ctx, "strata", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := lease.Annotations[runner.PushAnnotation]; !strings.HasPrefix(got, "b ") {
			t.Errorf("the Lease's %s is %q, want b's relay", runner.PushAnnotation, got)
		}

		// b leads once a stops; a push to it wakes its own fetch.
		stopA()
		<-doneA
		await(t, leads, "b")
		if code := pushTo(t, b.hook.URL, "d3"); code != http.StatusAccepted {
			t.Fatalf("the new leader answered %d, want 202", code)
		}
		await(t, b.woken, "b woken by its webhook")
		stopB()
		<-doneB
	})

	// One step beyond the chart's RBAC, each.
	beyond := []struct {
		name string
		call func() error
	}{
		{"list Applications in another namespace", func() error {
			_, err := dyn.Resource(live.ApplicationGVR).Namespace("other").List(ctx, metav1.ListOptions{})
			return err
		}},
		{"list Applications in every namespace", func() error {
			_, err := dyn.Resource(live.ApplicationGVR).List(ctx, metav1.ListOptions{})
			return err
		}},
		{"patch an Application in another namespace", func() error {
			_, err := dyn.Resource(live.ApplicationGVR).Namespace("other").Patch(ctx, "demo", types.MergePatchType, []byte(`{}`), metav1.PatchOptions{})
			return err
		}},
		{"create an Application", func() error {
			_, err := dyn.Resource(live.ApplicationGVR).Namespace("argocd").Create(ctx, application("new"), metav1.CreateOptions{})
			return err
		}},
		{"update an Application", func() error {
			u, err := adm.Resource(live.ApplicationGVR).Namespace("argocd").Get(ctx, "demo", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = dyn.Resource(live.ApplicationGVR).Namespace("argocd").Update(ctx, u, metav1.UpdateOptions{})
			return err
		}},
		{"delete an Application", func() error {
			return dyn.Resource(live.ApplicationGVR).Namespace("argocd").Delete(ctx, "demo", metav1.DeleteOptions{})
		}},
		{"watch ApplicationSets", func() error {
			w, err := dyn.Resource(live.ApplicationSetGVR).Namespace("argocd").Watch(ctx, metav1.ListOptions{})
			if err == nil {
				w.Stop()
			}
			return err
		}},
		{"read Argo CD's Secrets", func() error {
			_, err := dyn.Resource(secretGVR).Namespace("argocd").List(ctx, metav1.ListOptions{})
			return err
		}},
		{"read its own namespace's Secrets", func() error {
			_, err := dyn.Resource(secretGVR).Namespace("strata").List(ctx, metav1.ListOptions{})
			return err
		}},
		{"list Leases", func() error {
			_, err := dyn.Resource(leaseGVR).Namespace("strata").List(ctx, metav1.ListOptions{})
			return err
		}},
		{"watch every Lease", func() error {
			w, err := dyn.Resource(leaseGVR).Namespace("strata").Watch(ctx, metav1.ListOptions{})
			if err == nil {
				w.Stop()
			}
			return err
		}},
		{"watch another Lease", func() error {
			w, err := dyn.Resource(leaseGVR).Namespace("strata").Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=someone-else"})
			if err == nil {
				w.Stop()
			}
			return err
		}},
		{"read another Lease", func() error {
			_, err := dyn.Resource(leaseGVR).Namespace("strata").Get(ctx, "someone-else", metav1.GetOptions{})
			return err
		}},
		{"create a Lease in Argo CD's namespace", func() error {
			_, err := dyn.Resource(leaseGVR).Namespace("argocd").Create(ctx, &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": map[string]any{"name": "strata"}}}, metav1.CreateOptions{})
			return err
		}},
		{"create a Pod", func() error {
			_, err := dyn.Resource(podGVR).Namespace("strata").Create(ctx, &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "x"},
				"spec": map[string]any{"containers": []any{map[string]any{"name": "x", "image": "x"}}}}}, metav1.CreateOptions{})
			return err
		}},
		{"change its own Role", func() error {
			_, err := dyn.Resource(resources["Role"]).Namespace("argocd").Patch(ctx, "strata-argocd", types.MergePatchType, []byte(`{}`), metav1.PatchOptions{})
			return err
		}},
	}
	for _, b := range beyond {
		t.Run("refused: "+b.name, func(t *testing.T) {
			if err := b.call(); !apierrors.IsForbidden(err) {
				t.Errorf("got %v, want Forbidden", err)
			}
		})
	}
}

// pushTo posts a GitHub push signed with the tests' secret to the webhook
// at url, as delivery id; it returns the answer's status.
func pushTo(t *testing.T, url, id string) int {
	t.Helper()
	body := `{"ref":"refs/heads/main"}`
	mac := hmac.New(sha256.New, []byte("s3cret"))
	mac.Write([]byte(body))
	req, err := http.NewRequest(http.MethodPost, url+"/webhook", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-GitHub-Event", "push")
	req.Header.Set("X-GitHub-Delivery", id)
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return resp.StatusCode
}

// await waits for want on ch, within a minute.
func await(t *testing.T, ch chan string, want string) {
	t.Helper()
	timeout := time.After(time.Minute)
	var got []string
	for {
		select {
		case s := <-ch:
			if s == want {
				return
			}
			got = append(got, s)
		case <-timeout:
			t.Fatalf("no %q within a minute (got %q)", want, got)
		}
	}
}

// application is a minimal Application named name.
func application(name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "Application", "metadata": map[string]any{"name": name},
		"spec": map[string]any{"project": "default",
			"source":      map[string]any{"repoURL": "https://git.example.com/fleet.git", "path": "rendered"},
			"destination": map[string]any{"server": "https://kubernetes.default.svc", "namespace": "demo"}},
	}}
}

// apply applies manifest as an admin (Apply); it returns the kinds.
func apply(ctx context.Context, t *testing.T, dyn dynamic.Interface, manifest string) []string {
	t.Helper()
	kinds, err := Apply(ctx, dyn, manifest)
	if err != nil {
		t.Fatal(err)
	}
	return kinds
}
