//go:build linux

package kube_test

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/strata-fleet/strata/internal/kube"
	"github.com/strata-fleet/strata/internal/testing/testenv"
)

// TestInCluster reaches a real API server as a pod does: the token and CA
// from a service account directory, the server from
// KUBERNETES_SERVICE_HOST and _PORT.
func TestInCluster(t *testing.T) {
	api := testenv.StartAPIServer(t)
	u, err := url.Parse(api.Config().Host)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"KUBERNETES_SERVICE_HOST": u.Hostname(), "KUBERNETES_SERVICE_PORT": u.Port()}
	getenv := func(k string) string { return env[k] }
	sa := func(token string) string {
		dir := t.TempDir()
		for name, data := range map[string]string{"token": token, "ca.crt": string(api.CAData)} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	list := func(dir string) error {
		cfg, err := kube.InCluster(dir, getenv)
		if err == nil {
			cfg = kube.Secure(cfg)
		}
		if err != nil {
			return err
		}
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return err
		}
		_, err = cs.CoreV1().Namespaces().List(context.Background(), metav1.ListOptions{})
		return err
	}

	if err := list(sa(api.Token)); err != nil {
		t.Errorf("with the service account's token: %v", err)
	}
	if err := list(sa("not-the-token")); !apierrors.IsUnauthorized(err) {
		t.Errorf("with a wrong token: %v, want 401 Unauthorized", err)
	}
	if err := list(t.TempDir()); err == nil || !strings.Contains(err.Error(), "reading the service account's token") {
		t.Errorf("without a token: %v", err)
	}
	delete(env, "KUBERNETES_SERVICE_HOST")
	if err := list(sa(api.Token)); err == nil || !strings.Contains(err.Error(), "not running in a cluster") {
		t.Errorf("outside a cluster: %v", err)
	}
}

// TestNoKubeconfig: in-cluster configuration is used only when the user
// gave no kubeconfig at all.
func TestNoKubeconfig(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	none := func(string) string { return "" }
	if !kube.NoKubeconfig("", none) {
		t.Errorf("no path, no $KUBECONFIG, no ~/.kube/config: want no kubeconfig")
	}
	if kube.NoKubeconfig("/some/kubeconfig", none) {
		t.Errorf("--kubeconfig given: want a kubeconfig")
	}
	if kube.NoKubeconfig("", func(k string) string { return map[string]string{"KUBECONFIG": "/x"}[k] }) {
		t.Errorf("$KUBECONFIG set: want a kubeconfig")
	}
}
