package cli_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/strata-fleet/strata/internal/cli"
	"github.com/strata-fleet/strata/internal/testing/testenv"
)

// TestBootstrapApply runs strata bootstrap --apply against a real
// kube-apiserver: the first run installs Argo CD from a local chart and
// creates the objects, after printing what it writes where; the second
// reports every object unchanged; a bootstrap by --selector reaches the
// cluster through the kubeconfig context named as the cluster.
func TestBootstrapApply(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping under -short: starts etcd and kube-apiserver (built by " + testenv.BuildScript + ")")
	}
	s := testenv.StartAPIServer(t)
	chart := testenv.FakeArgoCDChart(t)
	root := filepath.Join("..", "..", "examples", "seed-004-self-managed")
	run := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		args = append(append([]string{"--root", root, "bootstrap"}, args...), "--yes") // never ask, whatever stdin is
		if code := cli.Main(args, &stdout, &stderr); code != 0 {
			t.Fatalf("strata %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
		}
		return stdout.String()
	}
	want := "plan: the bootstrap of dc11a (distributed model) goes to dc11a through context " + testenv.ContextName +
		" (chosen by --context), server " + s.URL + `:
  Argo CD's Helm release, from ` + chart + `, unless it is installed
  Namespace/argocd
  Secret/argocd/dc11a
  ApplicationSet/argocd/root
  Application/argocd/argocd
helmrelease/argocd installed (argo-cd 9.1.0)
namespace/argocd configured
secret/dc11a created
applicationset/root created
application/argocd created
`
	got := run("dc11a", "--apply", "--kubeconfig", s.Kubeconfig, "--context", testenv.ContextName, "--install-argocd", chart)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("first run (-want +got):\n%s", diff)
	}

	var rep struct {
		Context, Server string
		Results         []struct{ Kind, Name, Action string }
	}
	if err := json.Unmarshal([]byte(run("dc11a", "--apply", "--kubeconfig", s.Kubeconfig, "--context", testenv.ContextName, "--install-argocd", chart, "-o", "json")), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Context != testenv.ContextName || rep.Server != s.URL {
		t.Errorf("second run reports context %q at %q, want %s at %s", rep.Context, rep.Server, testenv.ContextName, s.URL)
	}
	for _, r := range rep.Results {
		if r.Action != "unchanged" && !(r.Kind == "HelmRelease" && r.Action == "skipped") {
			t.Errorf("second run: %s/%s %s, want unchanged", r.Kind, r.Name, r.Action)
		}
	}
	if len(rep.Results) != 5 {
		t.Errorf("second run reported %d objects, want 5", len(rep.Results))
	}

	// The same API server as context dc11a, which the selector's cluster
	// is named: no --context needed.
	named := renameContext(t, s.Kubeconfig, testenv.ContextName, "dc11a")
	got = run("--selector", "datacenter=dc11a", "--apply", "--kubeconfig", named)
	want = "plan: the bootstrap of dc11a (distributed model) goes to dc11a through context dc11a (chosen by the kubeconfig context named dc11a), server " + s.URL + `:
  Namespace/argocd
  Secret/argocd/dc11a
  ApplicationSet/argocd/root
  Application/argocd/argocd
namespace/argocd unchanged
secret/dc11a unchanged
applicationset/root unchanged
application/argocd unchanged
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("--selector (-want +got):\n%s", diff)
	}
}

// renameContext writes a copy of the kubeconfig at path whose context from
// is called to, and returns its path.
func renameContext(t *testing.T, path, from, to string) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Contexts[to] = cfg.Contexts[from]
	delete(cfg.Contexts, from)
	cfg.CurrentContext = to
	out := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, out); err != nil {
		t.Fatal(err)
	}
	return out
}
