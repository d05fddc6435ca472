package live

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// TestRestConfigInClusterIsSecure: in a pod, the client configuration the
// rollout runner keeps its Lease with (RestConfig) gets kube.Secure's
// safeguards as a kubeconfig's does: the service account's token is not
// taken along a redirect to another port.
func TestRestConfigInClusterIsSecure(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) }))
	defer other.Close()
	api := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer api.Close()
	dir := t.TempDir()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: api.Certificate().Raw})
	if err := os.WriteFile(filepath.Join(dir, "ca.crt"), ca, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "token"), []byte("the-pods-token"), 0o600); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(api.URL)
	t.Setenv("KUBERNETES_SERVICE_HOST", u.Hostname())
	t.Setenv("KUBERNETES_SERVICE_PORT", u.Port())
	t.Setenv("KUBECONFIG", "")
	t.Setenv("HOME", t.TempDir()) // no ~/.kube/config

	cfg, err := Kubeconfig{serviceAccountDir: dir}.RestConfig()
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = cs.CoordinationV1().Leases("strata").Get(ctx, "runner", metav1.GetOptions{})
	if err == nil || !strings.Contains(err.Error(), "strata follows no redirect") {
		t.Errorf("a redirect to another port: %v", err)
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the other server got %d requests", n)
	}
}
