package cli_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/cli"
	"github.com/strata-fleet/strata/internal/testenv"
)

// TestBootstrapApply runs strata bootstrap --apply against a real
// kube-apiserver with Argo CD's CRDs: the first run creates, the second
// reports every object unchanged.
func TestBootstrapApply(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping under -short: starts etcd and kube-apiserver (built by " + testenv.BuildScript + ")")
	}
	s := testenv.StartAPIServer(t)
	testenv.InstallArgoCDCRDs(t, s.Config())
	root := filepath.Join("..", "..", "examples", "seed-004-self-managed")
	run := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		args = append([]string{"--root", root, "bootstrap", "dc11a", "--apply", "--kubeconfig", s.Kubeconfig, "--context", testenv.ContextName}, args...)
		if code := cli.Main(args, &stdout, &stderr); code != 0 {
			t.Fatalf("strata %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
		}
		return stdout.String()
	}
	want := "applying the bootstrap of dc11a (distributed model) to dc11a at " + s.URL + `
namespace/argocd created
secret/dc11a created
applicationset/root created
application/argocd created
`
	if diff := cmp.Diff(want, run()); diff != "" {
		t.Errorf("first run (-want +got):\n%s", diff)
	}
	var rep struct {
		Results []struct{ Kind, Name, Action string }
	}
	if err := json.Unmarshal([]byte(run("-o", "json")), &rep); err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		if r.Action != "unchanged" {
			t.Errorf("second run: %s/%s %s, want unchanged", r.Kind, r.Name, r.Action)
		}
	}
	if len(rep.Results) != 4 {
		t.Errorf("second run reported %d objects, want 4", len(rep.Results))
	}
}
