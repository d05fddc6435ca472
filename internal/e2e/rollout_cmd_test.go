//go:build linux

package e2e

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/testing/testenv"
	"github.com/strata-fleet/strata/internal/testing/testgit"
)

// The scenarios of strata rollout: the command itself commits, pushes and
// waits for the real Argo CD, so the tests only check what it says and
// what the clusters run afterwards.

// rolloutSpokes are the spokes of the rollout scenarios: two regions of
// integration, then stage (a manual gate).
var rolloutSpokes = []Spoke{
	{Name: "spoke-a", Target: "integration/int-sector-1/us-east1"},
	{Name: "spoke-b", Target: "integration/int-sector-1/eu-west1"},
	{Name: "spoke-c", Target: "stage/stage-sector-1/ap-south1"},
}

const firstRegion = "config/spoke/demo/integration/int-sector-1/us-east1/"

// rollout runs strata rollout against the hub's Argo CD, pushing to
// origin, with a short soak, and returns what it printed; cancel, when
// given, is called once stdout shows a line containing cancelAt.
func (e *Env) rollout(ctx context.Context, cancelAt string, cancel func(), args ...string) Result {
	e.t.Helper()
	args = append(append([]string{"--root", e.Repo.Dir, "rollout", "spoke", "demo"}, args...),
		"--remote", "origin", "--kubeconfig", e.Hub.API.Kubeconfig, "--context", testenv.ContextName, "--soak", "3s", "--timeout", "4m")
	return e.strata(ctx, &watchWriter{want: cancelAt, seen: cancel}, args...)
}

// watchWriter is a buffer that calls seen once a line containing want has
// been written.
type watchWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen func()
}

func (w *watchWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.buf.Write(p)
	if w.want != "" && w.seen != nil && strings.Contains(w.buf.String(), w.want) {
		w.seen()
		w.seen = nil
	}
	return n, err
}

func (w *watchWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

func (e *Env) subjectsSince(commit string) []string {
	out := e.Repo.Git("log", "--reverse", "--format=%s", commit+"..HEAD")
	if out == "" {
		return nil
	}
	return strings.Split(out, "\n")
}

// TestE2ERolloutCommand: a healthy patch rolled out with strata rollout
// over the whole sequence. The first run is killed while it waits for its
// second step; the second stops at the manual gate of stage with the
// command that continues; the third, approved, folds the patch into
// values.yaml. Every step waited for real Argo CD syncs: the clusters end
// at 1.1.0, and the history holds one commit per step.
func TestE2ERolloutCommand(t *testing.T) {
	testgit.Setenv(t)
	e := Start(t, Options{Spokes: rolloutSpokes})
	defer e.Done()
	mark := e.Mark()
	base := deploy(t, e)
	e.Converge(Expect{Head: base, Apps: expectApps(e), State: expectState(e, allAt(e, "1.0.0"))})
	mark("deploy the fleet at 1.0.0")

	// The patch, written by hand at the first region and not committed:
	// the rollout's first step commits it.
	e.Repo.WriteFile(firstRegion+"patch-001.yaml", patch001)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := e.rollout(ctx, "Promote patch-001 of spoke/demo to integration/int-sector-1/eu-west1", cancel, "patch-001")
	if r.Code == 0 || !strings.Contains(r.Stderr, "context canceled") {
		t.Fatalf("the killed rollout: exit %d\n%s", r.Code, r.Stderr)
	}
	mark("rollout killed while it waits for its second step")

	r = e.rollout(context.Background(), "", nil, "patch-001")
	// The continuation repeats the run's flags (--root, --remote, --kubeconfig...).
	if r.Code != 4 || !strings.Contains(r.Stdout, "continue with:\n  strata --root ") || !strings.Contains(r.Stdout, " rollout spoke demo patch-001 --remote origin ") ||
		!strings.HasSuffix(r.Stdout, " --approve stage\n") {
		t.Fatalf("the resumed rollout: want it stopped at stage, exit 4, got exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	mark("rollout resumed, up to the gate")
	versions := allAt(e, "1.1.0")
	versions["spoke-c"] = "1.0.0"
	e.Converge(Expect{Head: e.Repo.Git("rev-parse", "HEAD"), Apps: expectApps(e), State: expectState(e, versions)})

	r = e.rollout(context.Background(), "", nil, "patch-001", "--approve", "stage")
	if r.Code != 0 || !strings.Contains(r.Stdout, "patch-001 is rolled out and folded into config/spoke/demo/values.yaml") {
		t.Fatalf("the approved rollout: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	mark("rollout through the gate")

	// The denominator is the targets render renders (6: two cluster types
	// over three regions), as strata render says.
	want := []string{
		"Start patch-001 of spoke/demo at integration/int-sector-1/us-east1: 1 of 6 targets' rendered output changed",
		"Promote patch-001 of spoke/demo to integration/int-sector-1/eu-west1, coalesce it at integration: 1 of 6 targets' rendered output changed",
		"Promote patch-001 of spoke/demo to stage/stage-sector-1/ap-south1, coalesce it at stage, fold it into config/spoke/demo/values.yaml: 1 of 6 targets' rendered output changed",
	}
	if d := cmp.Diff(want, e.subjectsSince(base)); d != "" {
		t.Errorf("history (-want +got):\n%s", d)
	}
	if patches := patchFiles(t, e, "patch-001.yaml"); len(patches) > 0 {
		t.Errorf("patch-001 still at %v after the rollout", patches)
	}
	if v := e.Repo.ReadFile("config/spoke/demo/values.yaml"); !strings.Contains(v, `version: "1.1.0"`) {
		t.Errorf("values.yaml after the rollout:\n%s", v)
	}
	if body := e.Repo.Git("log", "-1", "--format=%b"); !strings.Contains(body, "Approved-by: "+testgit.Name+" <"+testgit.Email+"> for stage") {
		t.Errorf("the step into stage records no approval:\n%s", body)
	}
	e.Converge(Expect{Head: e.Repo.Git("rev-parse", "HEAD"), Apps: expectApps(e), State: expectState(e, allAt(e, "1.1.0"))})
	mark("the fleet at 1.1.0")
}
