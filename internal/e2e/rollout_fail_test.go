//go:build linux

package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/strata-fleet/strata/internal/testing/testgit"
)

// rejectedPatch names the demo ConfigMap with a name the API server
// rejects: Argo CD's sync fails with the API server's message.
const rejectedPatch = `applications:
  demo:
    source:
      helm:
        valuesObject:
          name: Demo_Rejected
`

// TestE2ERolloutFailures: a patch whose check fails, then one the API
// server rejects at sync. Each stops at its first step, names the failure
// with the check's output or Argo CD's message, and leaves the later
// targets untouched; with --on-failure revert, each leaves the fleet
// healthy at 1.0.0 again (for the rejected sync, which Argo CD keeps
// retrying, once the rollout has terminated that operation).
func TestE2ERolloutFailures(t *testing.T) {
	testgit.Setenv(t)
	e := Start(t, Options{Spokes: rolloutSpokes[:2]})
	defer e.Done()
	mark := e.Mark()
	e.Repo.ReplaceInFile("config/config.yaml", "cluster_types:", `rollout:
  checks:
    - name: smoke
      command: 'if [ -f smoke-fails ]; then echo "smoke test failed on $STRATA_CLUSTERS"; exit 1; fi'
      timeout: 30s
cluster_types:`)
	e.Repo.WriteFile("smoke-fails", "") // the check fails
	head := deploy(t, e)
	e.Converge(Expect{Head: head, Apps: expectApps(e), State: expectState(e, allAt(e, "1.0.0"))})
	mark("deploy the fleet at 1.0.0")
	untouched := func(patch string) {
		t.Helper()
		if got := patchFiles(t, e, patch); len(got) > 1 {
			t.Errorf("%s went on after the failure: %v", patch, got)
		}
		if d := e.Repo.Changed(head, "HEAD", "rendered/spoke/integration/int-sector-1/eu-west1"); len(d) > 0 {
			t.Errorf("a later target changed: %v", d)
		}
	}

	e.Repo.WriteFile(firstRegion+"patch-003.yaml", patch001)
	r := e.rollout(context.Background(), "", nil, "patch-003", "--on-failure", "revert")
	if r.Code != 1 || !strings.Contains(r.Stderr, "check smoke: exit status 1\n    smoke test failed on spoke-a") || !strings.Contains(r.Stderr, "reverted by ") {
		t.Errorf("the failing check: exit %d\n%s", r.Code, r.Stderr)
	}
	untouched("patch-003.yaml")
	e.Converge(Expect{Head: e.Repo.Git("rev-parse", "HEAD"), Apps: expectApps(e), State: expectState(e, allAt(e, "1.0.0"))})
	mark("failing check: reverted, the fleet healthy at 1.0.0")

	e.Repo.Remove("smoke-fails")
	head = e.Commit("the smoke test passes")
	app := appName("integration/int-sector-1/us-east1", "demo")
	e.Repo.WriteFile(firstRegion+"patch-002.yaml", rejectedPatch)
	r = e.rollout(context.Background(), "", nil, "patch-002", "--on-failure", "revert")
	if r.Code != 1 || !strings.Contains(r.Stderr, "Application "+app+" of spoke-a on the Argo CD of hub: sync failed") ||
		!strings.Contains(r.Stderr, `"Demo_Rejected" is invalid`) || !strings.Contains(r.Stderr, "reverted by ") {
		t.Errorf("the rejected patch: want exit 1 naming %s with the API server's message, reverted; got exit %d\n%s", app, r.Code, r.Stderr)
	}
	untouched("patch-002.yaml")
	e.Converge(Expect{Head: e.Repo.Git("rev-parse", "HEAD"), Apps: expectApps(e), State: expectState(e, allAt(e, "1.0.0"))})
	mark("rejected patch: stopped, reverted, the fleet healthy at 1.0.0")
}
