package bootstrap_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-fleet/strata/internal/bootstrap"
)

// The context of an apply is named, never merely current: --context, else
// the inventory's context:, else a context named as the cluster; and it
// must not reach another cluster of the inventory.
func TestTargetIsNamed(t *testing.T) {
	f := hubFleet(t, "https://spoke-1:6443")
	kubeconfig := func(t *testing.T, contexts string) *bootstrap.Kubeconfig {
		t.Helper()
		p := filepath.Join(t.TempDir(), "kubeconfig")
		data := `apiVersion: v1
kind: Config
current-context: kind-dev
clusters:
- {name: local, cluster: {server: "https://127.0.0.1:6443"}}
- {name: spoke-1, cluster: {server: "https://spoke-1:6443/"}}
users: [{name: u, user: {token: t0ken}}]
contexts:
` + contexts
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		k, err := bootstrap.ReadKubeconfig(p)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	both := "- {name: kind-dev, context: {cluster: local, user: u}}\n- {name: hub-1, context: {cluster: local, user: u}}\n- {name: spoke-1, context: {cluster: spoke-1, user: u}}\n"
	current := "- {name: kind-dev, context: {cluster: local, user: u}}\n"
	for _, tc := range []struct {
		name, contexts, explicit string
		wantContext, wantBy      string
		wantErr                  string
	}{
		{name: "--context", contexts: both, explicit: "kind-dev", wantContext: "kind-dev", wantBy: "--context"},
		{name: "the context named as the cluster", contexts: both, wantContext: "hub-1", wantBy: "the kubeconfig context named hub-1"},
		{name: "the current context alone", contexts: current, wantErr: "no kubeconfig context is named for cluster hub-1: the current context, kind-dev (https://127.0.0.1:6443), is used only when named"},
		{name: "a context of a spoke", contexts: both, explicit: "spoke-1", wantErr: "context spoke-1 (chosen by --context) reaches https://spoke-1:6443/, the API server of cluster spoke-1, but these objects go to hub-1"},
		{name: "a context the kubeconfig lacks", contexts: current, explicit: "hub-1", wantErr: `--context: unknown kubeconfig context "hub-1" (one of: kind-dev)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := kubeconfig(t, tc.contexts).Target(f, "hub-1", tc.explicit)
			if tc.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
					t.Fatalf("Target = %v, want error %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Context != tc.wantContext || got.ChosenBy != tc.wantBy || got.Server != "https://127.0.0.1:6443" {
				t.Errorf("Target = %+v, want context %s chosen by %s at https://127.0.0.1:6443", got, tc.wantContext, tc.wantBy)
			}
		})
	}
}

// The check that a context does not reach another cluster's API server
// compares servers, not text: the spellings of one server (host case, a
// trailing dot or slash, a host and its address) are one server; another
// port or another path is another server.
func TestTargetComparesServersAsServers(t *testing.T) {
	for _, tc := range []struct {
		spoke   string
		refused bool
	}{
		{"https://LocalHost:18070", true},
		{"https://localhost.:18070/", true},
		{"https://127.0.0.1:18070", true},
		{"https://localhost:18071", false},
		{"https://localhost:18070/k8s/clusters/c-2", false},
	} {
		t.Run(tc.spoke, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "kubeconfig")
			data := `apiVersion: v1
kind: Config
clusters: [{name: hub, cluster: {server: "https://localhost:18070"}}]
users: [{name: u, user: {token: t0ken}}]
contexts: [{name: hub-1, context: {cluster: hub, user: u}}]
`
			if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
			k, err := bootstrap.ReadKubeconfig(p)
			if err != nil {
				t.Fatal(err)
			}
			_, err = k.Target(hubFleet(t, tc.spoke), "hub-1", "")
			switch {
			case tc.refused && (err == nil || !strings.Contains(err.Error(), "the API server of cluster spoke-1")):
				t.Errorf("Target = %v, want it refused as spoke-1's server", err)
			case !tc.refused && err != nil:
				t.Errorf("Target: %v", err)
			}
		})
	}
}

// RESTConfig's errors are scrubbed as every error of a kubeconfig is:
// client-go's invalid proxy-url error quotes the URL, password and all.
func TestRESTConfigErrorsAreScrubbed(t *testing.T) {
	p := filepath.Join(t.TempDir(), "kubeconfig")
	data := `apiVersion: v1
kind: Config
clusters: [{name: hub, cluster: {server: "https://hub:6443", proxy-url: "socks9://admin:pr0xy-s3cret@proxy:1080"}}]
users: [{name: u, user: {token: t0ken}}]
contexts: [{name: hub-1, context: {cluster: hub, user: u}}]
`
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	k, err := bootstrap.ReadKubeconfig(p)
	if err != nil {
		t.Fatal(err)
	}
	target, err := k.Target(hubFleet(t, "https://spoke-1:6443"), "hub-1", "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = target.RESTConfig()
	if err == nil || !strings.Contains(err.Error(), `unsupported scheme "socks9"`) {
		t.Fatalf("RESTConfig: %v, want client-go's proxy-url error", err)
	}
	if strings.Contains(err.Error(), "pr0xy-s3cret") {
		t.Errorf("RESTConfig: %v: the proxy's password is shown", err)
	}
}
