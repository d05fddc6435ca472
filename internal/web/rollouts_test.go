package web_test

import (
	"encoding/json"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-fleet/strata/internal/testfleet"
)

// TestRolloutsInFlight: the matrix page and /api/status show where each
// rollout in flight stands, from the repository's Git history read at the
// request: a revert of a step with its reason, a freeze that holds the
// next step.
func TestRolloutsInFlight(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	if err := testfleet.Write(dir); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "fleet")
	p := filepath.Join(dir, "config/management-cluster/cert-manager/stage/stage-sector-1/patch-001.yaml")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	write(t, p, string(data)+"# back at stage-sector-1\n")
	git("add", ".")
	git("commit", "-q", "-m", `Revert "Promote patch-001 to stage/stage-sector-2"`, "-m",
		"Strata-Failed: stage/stage-sector-2: Application cert-manager on mc-stage2: sync failed")
	revert := git("rev-parse", "HEAD")
	write(t, filepath.Join(dir, "config/freezes.yaml"), "freezes:\n  - {node: stage, by: Jane <jane@example.com>, at: 2026-11-26T12:30:00Z, reason: 'INC-42: failover'}\n")
	_, ts, _ := serveDir(t, dir)

	code, body := get(t, ts, "/")
	for _, want := range []string{
		"<h2>Rollouts in flight</h2>",
		`<a class="patch-link" href="/patch/management-cluster/cert-manager/patch-001">management-cluster/cert-manager/patch-001</a>`,
		"reverted in " + revert[:12] + ": stage/stage-sector-2: Application cert-manager on mc-stage2: sync failed",
		"freeze of stage by Jane <jane@example.com>: INC-42: failover",
	} {
		if !strings.Contains(html.UnescapeString(body), want) {
			t.Errorf("GET /: %d, the page lacks %q", code, want)
		}
	}
	_, body = get(t, ts, "/api/status")
	var st struct {
		Rollouts []struct {
			Patch string
			Step  struct{ Commit string }
		}
	}
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Rollouts) != 3 || st.Rollouts[0].Patch != "management-cluster/cert-manager/patch-001" || st.Rollouts[0].Step.Commit != revert {
		t.Errorf("GET /api/status: rollouts %+v, want 3, the first's step %s", st.Rollouts, revert)
	}
}
