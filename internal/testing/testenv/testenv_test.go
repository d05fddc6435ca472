package testenv_test

import (
	"context"
	"errors"
	"net"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/strata-fleet/strata/internal/testing/testenv"
)

var applicationGVR = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "applications"}

const fieldManager = "strata-test"

func TestBuildScriptsPinVersions(t *testing.T) {
	for _, c := range []struct{ script, variable, want string }{
		{testenv.BuildScript, "KUBE_VERSION", testenv.KubeVersion},
		{testenv.EtcdBuildScript, "ETCD_VERSION", testenv.EtcdVersion},
	} {
		script, err := os.ReadFile("../../../" + c.script)
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`(?m)^` + c.variable + `=(\S+)$`).FindSubmatch(script)
		if m == nil {
			t.Fatalf("%s: no %s= line", c.script, c.variable)
		}
		if got := string(m[1]); got != c.want {
			t.Errorf("%s pins %s, testenv has %s: change both together", c.script, got, c.want)
		}
	}
}

func TestAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping under -short: starts etcd and kube-apiserver (built by " + testenv.BuildScript + ")")
	}
	var s *testenv.APIServer
	t.Run("lifecycle", func(t *testing.T) {
		s = testenv.StartAPIServer(t)
		testAPIServer(t, s)
	})
	if s == nil || t.Failed() {
		return
	}
	// The subtest's cleanups have stopped the server: nothing listens any more.
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	if conn, err := net.DialTimeout("tcp", u.Host, time.Second); err == nil {
		conn.Close()
		t.Errorf("%s still accepts connections after the test's cleanup", s.URL)
	}
}

func testAPIServer(t *testing.T, s *testenv.APIServer) {
	ctx := t.Context()
	cfg := s.Config()
	cs := kubernetes.NewForConfigOrDie(cfg)
	dyn := dynamic.NewForConfigOrDie(cfg)

	t.Run("reports the stamped version", func(t *testing.T) {
		v, err := cs.Discovery().ServerVersion()
		if err != nil {
			t.Fatal(err)
		}
		if v.GitVersion != testenv.KubeVersion {
			t.Errorf("server version = %q, want %q", v.GitVersion, testenv.KubeVersion)
		}
	})

	t.Run("serves consistent lists from its watch cache", func(t *testing.T) {
		testConsistentListsFromCache(t, s)
	})

	t.Run("kubeconfig reaches the server", func(t *testing.T) {
		kc, err := clientcmd.LoadFromFile(s.Kubeconfig)
		if err != nil {
			t.Fatal(err)
		}
		if kc.CurrentContext != testenv.ContextName {
			t.Errorf("current context = %q, want %q", kc.CurrentContext, testenv.ContextName)
		}
		restCfg, err := clientcmd.BuildConfigFromFlags("", s.Kubeconfig)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := kubernetes.NewForConfigOrDie(restCfg).CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{}); err != nil {
			t.Errorf("getting namespace default through the kubeconfig: %v", err)
		}
	})

	testenv.InstallArgoCDCRDs(t, cfg)
	if _, err := cs.CoreV1().Namespaces().Apply(ctx, corev1ac.Namespace("argocd"),
		metav1.ApplyOptions{FieldManager: fieldManager}); err != nil {
		t.Fatalf("applying namespace argocd: %v", err)
	}

	t.Run("applies an Application server-side", func(t *testing.T) {
		apps := dyn.Resource(applicationGVR).Namespace("argocd")
		want := application("guestbook", validSpec())
		if _, err := apps.Apply(ctx, "guestbook", want, metav1.ApplyOptions{FieldManager: fieldManager}); err != nil {
			t.Fatalf("applying Application guestbook: %v", err)
		}
		got, err := apps.Get(ctx, "guestbook", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want.Object["spec"], got.Object["spec"]); diff != "" {
			t.Errorf("spec read back (-want +got):\n%s", diff)
		}
		managers := got.GetManagedFields()
		if len(managers) != 1 || managers[0].Manager != fieldManager || managers[0].Operation != metav1.ManagedFieldsOperationApply {
			t.Errorf("managed fields = %+v, want one Apply entry of %s", managers, fieldManager)
		}
	})

	// The API server rejects an invalid Application whichever way it comes.
	// A create (here a dry run, as a validator would send) fails as Invalid
	// (422) naming the field. A server-side apply fails too, but a wrong type
	// fails with HTTP 500 and no reason, "failed to create typed patch object",
	// raised before the schema validation: callers must not expect 422 there.
	t.Run("rejects invalid Applications", func(t *testing.T) {
		tests := []struct {
			name  string
			edit  func(spec map[string]any)
			field string // named by the error
		}{
			{"without spec.destination", func(s map[string]any) { delete(s, "destination") }, "spec.destination"},
			{"with a number for spec.project", func(s map[string]any) { s["project"] = int64(42) }, "spec.project"},
			{"with a string for spec.destination", func(s map[string]any) { s["destination"] = "in-cluster" }, "spec.destination"},
		}
		apps := dyn.Resource(applicationGVR).Namespace("argocd")
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				spec := validSpec()
				tt.edit(spec)
				app := application("invalid", spec)

				_, err := apps.Create(ctx, app, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
				if !apierrors.IsInvalid(err) {
					t.Errorf("dry-run create: error = %v (reason %q), want Invalid", err, apierrors.ReasonForError(err))
				} else if !strings.Contains(err.Error(), tt.field) {
					t.Errorf("dry-run create: error %q does not name %s", err, tt.field)
				}

				_, err = apps.Apply(ctx, "invalid", app, metav1.ApplyOptions{FieldManager: fieldManager})
				if err == nil {
					t.Fatal("server-side apply: the API server accepted it")
				}
				if !strings.Contains(err.Error(), tt.field) {
					t.Errorf("server-side apply: error %q does not name %s", err, tt.field)
				}
				var status apierrors.APIStatus
				if errors.As(err, &status) {
					t.Logf("server-side apply: HTTP %d %q: %v", status.Status().Code, status.Status().Reason, err)
				}
			})
		}
		if _, err := apps.Get(ctx, "invalid", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("getting the invalid Application: error = %v, want NotFound", err)
		}
	})

	t.Run("deleting a namespace completes with the controller manager", func(t *testing.T) {
		s.StartControllerManager(t)
		if _, err := cs.CoreV1().Namespaces().Apply(ctx, corev1ac.Namespace("doomed"),
			metav1.ApplyOptions{FieldManager: fieldManager}); err != nil {
			t.Fatal(err)
		}
		apps := dyn.Resource(applicationGVR).Namespace("doomed")
		if _, err := apps.Apply(ctx, "app", application("app", validSpec()), metav1.ApplyOptions{FieldManager: fieldManager}); err != nil {
			t.Fatal(err)
		}
		if err := cs.CoreV1().Namespaces().Delete(ctx, "doomed", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			_, err := cs.CoreV1().Namespaces().Get(ctx, "doomed", metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		})
		if err != nil {
			t.Fatalf("namespace doomed still exists a minute after its deletion: %v", err)
		}
	})
}

// validSpec returns the spec of a valid Application.
func validSpec() map[string]any {
	return map[string]any{
		"project": "default",
		"source": map[string]any{
			"repoURL":        "https://git.example.com/fleet.git",
			"path":           "rendered/management-cluster/production",
			"targetRevision": "main",
		},
		"destination": map[string]any{
			"server":    "https://kubernetes.default.svc",
			"namespace": "guestbook",
		},
	}
}

// application returns an Application named name with spec.
func application(name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "argoproj.io/v1alpha1",
		"kind":       "Application",
		"metadata":   map[string]any{"name": name},
		"spec":       spec,
	}}
}

// testConsistentListsFromCache lists namespaces as kubectl and status --live
// list (no resourceVersion: a consistent read) until the server's metrics
// count one served from its watch cache. The server decides only once it
// has asked etcd its version, shortly after it starts; with an etcd that
// cannot tell it how fresh the cache is (before 3.5.13), every such list
// goes to etcd and is never counted.
func testConsistentListsFromCache(t *testing.T, s *testenv.APIServer) {
	if os.Getenv(testenv.EnvEtcd) == "" && "v"+s.Etcd != testenv.EtcdVersion {
		t.Errorf("etcd reports version %s, want %s", s.Etcd, testenv.EtcdVersion)
	}
	cfg := s.Config()
	cs := kubernetes.NewForConfigOrDie(cfg)
	var reads testenv.ConsistentReads
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		if _, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{}); err != nil {
			return false, err
		}
		var err error
		reads, err = testenv.ReadConsistentReads(ctx, cfg, "", "namespaces")
		return reads.FromCache > 0, err
	})
	if err != nil {
		t.Errorf("no consistent list of namespaces was served from the watch cache (etcd %s; %s): %v", s.Etcd, reads, err)
	}
}
