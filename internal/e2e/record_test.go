//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/strata-fleet/strata/internal/record"
	"github.com/strata-fleet/strata/internal/rollout/inflight"
	"github.com/strata-fleet/strata/internal/testing/testenv"
	"github.com/strata-fleet/strata/internal/testing/testgit"
)

// TestE2ERecord: delivery's record (issue 36) against real Argo CD, in one
// fleet of two integration regions whose smoke check fails on spoke-b
// while the file smoke-fails-b is committed.
//
//   - A step fails and is reverted: patch-001, delivered at us-east1 by a
//     person's rendered commit, steps to eu-west1, where the check fails;
//     --on-failure revert reverts it. The record says reverted (the step's
//     commit, the revert's); status shows the failure and a change to
//     wait for; rollout --once and then a --watch runner both say it stays
//     stopped, and neither pushes the step again.
//   - A step delivered by a later commit: patch-002 is committed and
//     pushed without strata render. It is delivered nowhere (spoke-a
//     keeps 1.0.0) until a commit carries its rendered output (the
//     rollout's own first step, or a render committed after its exit 3);
//     that later commit is what the record names for it at us-east1,
//     never the patch's.
func TestE2ERecord(t *testing.T) {
	testgit.Setenv(t)
	e := Start(t, Options{Spokes: rolloutSpokes[:2]})
	defer e.Done()
	mark := e.Mark()
	e.Repo.ReplaceInFile("config/config.yaml", "cluster_types:", `rollout:
  checks:
    - name: smoke
      command: 'if [ -f smoke-fails-b ] && [ "$STRATA_CLUSTERS" = spoke-b ]; then echo "smoke test failed on spoke-b"; exit 1; fi'
      timeout: 30s
cluster_types:`)
	head := deploy(t, e)
	e.Converge(Expect{Head: head, Apps: expectApps(e), State: expectState(e, allAt(e, "1.0.0"))})
	mark("deploy the fleet at 1.0.0")

	e.recordOfRevert(t)
	mark("a failed step reverted: the record, status, --once and --watch agree")
	e.recordOfLaterCommit(t)
	mark("a patch committed without render: delivered by the later commit")
}

// recordOfRevert is TestE2ERecord's first case.
func (e *Env) recordOfRevert(t *testing.T) {
	const id = "spoke/demo/patch-001"
	e.Repo.WriteFile(firstRegion+"patch-001.yaml", patch001)
	e.Repo.WriteFile("smoke-fails-b", "")
	e.MustStrata("render")
	e.Commit("demo 1.1.0 at us-east1; the smoke test fails on spoke-b")

	r := e.rollout(context.Background(), "", nil, "patch-001", "--on-failure", "revert")
	if r.Code != 1 || !strings.Contains(r.Stderr, "smoke test failed on spoke-b") || !strings.Contains(r.Stderr, "reverted by ") {
		t.Fatalf("want the step to eu-west1 failed and reverted, exit 1; got exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	revert := e.Repo.Git("rev-parse", "HEAD")
	step := e.Repo.Git("rev-parse", "HEAD^")
	if subj := e.Repo.Git("log", "-1", "--format=%s", step); !strings.HasPrefix(subj, "Promote patch-001 of spoke/demo to integration/int-sector-1/eu-west1") {
		t.Fatalf("the commit before the revert is %q, want the step to eu-west1", subj)
	}

	// The record: the step, its failure and strata's revert of it, each
	// naming the step's commit.
	var kinds []string
	var reverted *record.Entry
	for _, en := range e.record(id) {
		kinds = append(kinds, en.Kind+" "+en.Node)
		if en.Kind == record.KindReverted {
			reverted = &en
		}
	}
	const eu = "integration/int-sector-1/eu-west1"
	want := []string{record.KindStep + " " + eu, record.KindFailed + " " + eu, record.KindReverted + " " + eu}
	if !containsInOrder(kinds, want) {
		t.Errorf("the record of %s is %q, want %q in that order", id, kinds, want)
	}
	if reverted == nil || reverted.Step != step || reverted.Revert != revert {
		t.Errorf("the reverted entry is %+v, want step %.12s reverted by %.12s", reverted, step, revert)
	}

	// status: the failure, and a change of the patch's files to wait for.
	if f := e.flight(id); f == nil || f.LastFailure == nil || !hasWait(f, "change") {
		t.Errorf("status shows %s as %+v, want its last failure and a change of its files to wait for", id, f)
	}

	// rollout --once: the step stays failed; nothing pushed.
	remote := e.Repo.Git("ls-remote", "origin", "main")
	steps := len(e.recordKinds(id, record.KindStep))
	r = e.rollout(context.Background(), "", nil, "patch-001", "--once", "--on-failure", "revert")
	if r.Code != 1 || !strings.Contains(r.Stderr+r.Stdout, "stays stopped until the patch's files change") {
		t.Errorf("rollout --once after the revert: want exit 1, the step stays stopped; got exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	e.unmoved(t, remote, id, steps, "rollout --once")

	// The next --watch: the same, and it does not take the step again.
	ctx, cancel := context.WithCancel(context.Background())
	out := newLines()
	run := &running{done: make(chan struct{})}
	go func() {
		defer close(run.done)
		run.res = e.strata(ctx, out, "rollout", "--watch", "-o", "json", "--on-failure", "revert", "--interval", "2s", "--remote", "origin",
			"--kubeconfig", e.Hub.API.Kubeconfig, "--context", testenv.ContextName, "--soak", "3s", "--timeout", "4m")
	}()
	out.wait(t, run, "the step failed in an earlier run (recorded); the rollout stays stopped until the patch's files change")
	cancel()
	<-run.done
	if strings.Contains(out.String(), `"event":"promoted"`) {
		t.Errorf("rollout --watch took a step:\n%s", out.String())
	}
	e.unmoved(t, remote, id, steps, "rollout --watch")
}

// recordOfLaterCommit is TestE2ERecord's second case.
func (e *Env) recordOfLaterCommit(t *testing.T) {
	const id = "spoke/demo/patch-002"
	// patch-001 is taken away by hand, rendered; the check passes again.
	e.Repo.Remove(firstRegion + "patch-001.yaml")
	e.Repo.Remove("smoke-fails-b")
	e.MustStrata("render")
	withdrawn := e.Commit("demo: patch-001 withdrawn")
	e.Converge(Expect{Head: withdrawn, Apps: expectApps(e), State: expectState(e, allAt(e, "1.0.0"))})

	e.Repo.WriteFile(firstRegion+"patch-002.yaml", versionPatch("demo", "1.2.0"))
	unrendered := e.Commit("demo 1.2.0 at us-east1, not rendered")
	if d := e.Repo.Changed(unrendered+"^", unrendered, "rendered"); len(d) > 0 {
		t.Fatalf("the patch's commit changed rendered/: %v", d)
	}
	st, err := e.ReadState()
	if err != nil {
		t.Fatal(err)
	}
	if got := st["spoke-a/demo/demo"]["version"]; got != "1.0.0" {
		t.Errorf("spoke-a runs demo %s, want 1.0.0: the patch's output is committed nowhere", got)
	}

	// The rollout either refuses (exit 3: the output is not committed)
	// or makes the step that commits it; either way what the record
	// names is a commit that carries the output, never the patch's.
	const usEast = "integration/int-sector-1/us-east1"
	r := e.rollout(context.Background(), "", nil, "patch-002", "--until", usEast)
	if r.Code == 3 {
		if !strings.Contains(r.Stderr, "is not delivered there until its rendered output is") {
			t.Errorf("exit 3 without saying the patch is not delivered:\n%s", r.Stderr)
		}
		e.MustStrata("render")
		e.Commit("demo 1.2.0 at us-east1, rendered")
		r = e.rollout(context.Background(), "", nil, "patch-002", "--until", usEast)
	}
	if r.Code != 0 {
		t.Fatalf("the rollout of patch-002 to us-east1: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	var passed []string
	for _, en := range e.record(id) {
		if en.Step == unrendered {
			t.Errorf("the record's %s entry names %.12s, the patch's commit without its rendered output", en.Kind, unrendered)
		}
		if en.Kind == record.KindPassed && en.Node == usEast {
			passed = append(passed, en.Step)
		}
	}
	if len(passed) != 1 {
		t.Fatalf("the record passes %s at us-east1 %d times (%.12q), want once", id, len(passed), passed)
	}
	if d := e.Repo.Changed(passed[0]+"^", passed[0], "rendered/spoke/integration/int-sector-1/us-east1"); len(d) == 0 {
		t.Errorf("the record's pass at us-east1 names %.12s, which carries none of the patch's rendered output", passed[0])
	}
	st, err = e.ReadState()
	if err != nil {
		t.Fatal(err)
	}
	if got := st["spoke-a/demo/demo"]["version"]; got != "1.2.0" {
		t.Errorf("spoke-a runs demo %s after the rollout, want 1.2.0", got)
	}
}

// unmoved checks that since remote (main's ls-remote) was read, nothing
// was pushed and the record has no more than steps steps of patch id.
func (e *Env) unmoved(t *testing.T, remote, id string, steps int, what string) {
	t.Helper()
	e.Repo.Git("fetch", "-q", "origin", record.Refspec("origin"))
	if got := e.Repo.Git("ls-remote", "origin", "main"); got != remote {
		t.Errorf("%s pushed main: %s, was %s", what, got, remote)
	}
	if n := len(e.recordKinds(id, record.KindStep)); n != steps {
		t.Errorf("%s recorded %d steps of %s, had %d", what, n, id, steps)
	}
}

// record is the entries of patch id in the fleet repository's record and
// the remote's as last fetched, oldest first, each once.
func (e *Env) record(id string) []record.Entry {
	e.t.Helper()
	revs := []string{record.Ref}
	if e.Repo.Git("for-each-ref", record.Tracking("origin")) != "" {
		revs = append(revs, record.Tracking("origin"))
	}
	out := e.Repo.Git(append([]string{"log", "--reverse", "--format=%B%x00"}, revs...)...)
	var entries []record.Entry
	for msg := range strings.SplitSeq(out, "\x00") {
		if msg = strings.TrimSpace(msg); msg == "" {
			continue
		}
		en, err := record.Parse(msg)
		if err != nil {
			e.t.Fatalf("%q: %v", msg, err)
		}
		if en.Patch == id {
			entries = append(entries, en)
		}
	}
	return entries
}

func (e *Env) recordKinds(id, kind string) []record.Entry {
	var out []record.Entry
	for _, en := range e.record(id) {
		if en.Kind == kind {
			out = append(out, en)
		}
	}
	return out
}

// flight is what `strata status -o json` says of patch id's rollout.
func (e *Env) flight(id string) *inflight.Flight {
	e.t.Helper()
	r := e.MustStrata("status", "-o", "json")
	var st struct {
		Rollouts []inflight.Flight `json:"rollouts"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil {
		e.t.Fatalf("strata status -o json: %v", err)
	}
	for i := range st.Rollouts {
		if st.Rollouts[i].Patch == id {
			return &st.Rollouts[i]
		}
	}
	return nil
}

func hasWait(f *inflight.Flight, kind string) bool {
	for _, w := range f.Waits {
		if w.Kind == kind {
			return true
		}
	}
	return false
}

// containsInOrder says whether want appears in got, in order, not
// necessarily side by side.
func containsInOrder(got, want []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}
