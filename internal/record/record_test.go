package record_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/record"
	"github.com/strata-fleet/strata/internal/testing/testgit"
)

const patch = "workload/demo/patch-001"

// clone is a fleet repository with a step of patch committed and pushed:
// its commit, carrying the patch's trailer, rendered output at
// workload/integration/us-east1.
type clone struct {
	t    *testing.T
	dir  string
	g    git.Exec
	step string
}

func newClone(t *testing.T) (*clone, string) {
	dir := filepath.Join(t.TempDir(), "fleet")
	bare := testgit.Remote(t, dir)
	c := &clone{t: t, dir: dir, g: git.Exec{Dir: dir, Env: testgit.Env}}
	c.write("config/workload/demo/integration/us-east1/patch-001.yaml", "applications: {demo: {source: {targetRevision: 1.1.0}}}\n")
	c.write("rendered/workload/integration/us-east1/values.yaml", "demo: 1.1.0\n")
	c.step = c.commit("Start patch-001\n\nStrata-Rollout: " + patch)
	testgit.Run(t, dir, "push", "-q")
	return c, bare
}

// another is a second clone of bare, c's remote, at c's step.
func (c *clone) another(bare string) *clone {
	other := filepath.Join(c.t.TempDir(), "other")
	testgit.Run(c.t, "", "clone", "-q", bare, other)
	return &clone{t: c.t, dir: other, g: git.Exec{Dir: other, Env: testgit.Env}, step: c.step}
}

func (c *clone) write(p, data string) {
	c.t.Helper()
	p = filepath.Join(c.dir, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		c.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		c.t.Fatal(err)
	}
}

func (c *clone) commit(msg string) string {
	testgit.Run(c.t, c.dir, "add", "-A")
	testgit.Run(c.t, c.dir, "commit", "-q", "-m", msg)
	return testgit.Run(c.t, c.dir, "rev-parse", "HEAD")
}

func (c *clone) log() *record.Log {
	return &record.Log{Git: c.g, Dir: c.dir, Remote: "origin", Backoff: time.Millisecond}
}

// later is c's record as written on, each call a minute after the last
// (its commits' time): a record commit made again is another commit,
// as it is when runs are seconds apart.
func (c *clone) later(n *int) *record.Log {
	*n++
	g := c.g
	g.Env = append(append([]string{}, g.Env...), fmt.Sprintf("GIT_COMMITTER_DATE=2026-11-29T%02d:%02d:00Z", 2+*n/60, *n%60))
	return &record.Log{Git: g, Dir: c.dir, Remote: "origin", Backoff: time.Millisecond}
}

// entry is strata's entry of kind for c's step, as the rollout makes it.
func (c *clone) entry(kind string, at time.Time) record.Entry {
	c.t.Helper()
	ctx := context.Background()
	e := record.Entry{Kind: kind, Patch: patch, Node: "integration/us-east1", Step: c.step,
		Targets: []string{"workload/integration/us-east1"}, At: at}
	var err error
	if e.Tree, err = record.TreeOf(ctx, c.g, c.step, e.Targets); err != nil {
		c.t.Fatal(err)
	}
	if e.PatchFiles, err = record.FilesOf(ctx, c.g, c.step, patch); err != nil {
		c.t.Fatal(err)
	}
	return e
}

func (c *clone) read() *record.Entries {
	c.t.Helper()
	es, err := c.log().Read(context.Background())
	if err != nil {
		c.t.Fatal(err)
	}
	return es
}

// TestAppendRead: entries come back exactly as written, newest first,
// from this clone and, fetched, from another; the remote's record is one
// commit per entry.
func TestAppendRead(t *testing.T) {
	c, bare := newClone(t)
	t0 := time.Date(2026, 11, 29, 1, 0, 0, 0, time.UTC)
	step, passed := c.entry(record.KindStep, t0), c.entry(record.KindPassed, t0.Add(time.Minute))
	passed.Checks = []record.Check{{Name: "smoke", Definition: "0123456789abcdef", Passed: true}}
	if err := c.log().Append(context.Background(), step, passed); err != nil {
		t.Fatal(err)
	}
	got := c.read().Of(patch)
	opt := cmp.Comparer(func(a, b record.Entry) bool {
		a.Host, b.Host = "", ""
		return cmp.Equal(a, b, cmp.AllowUnexported(record.Entry{}), cmp.FilterPath(func(p cmp.Path) bool {
			return strings.HasSuffix(p.String(), "id") || strings.HasSuffix(p.String(), "signed") || strings.HasSuffix(p.String(), "body")
		}, cmp.Ignore()))
	})
	if diff := cmp.Diff([]record.Entry{passed, step}, got, opt); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}
	if n := testgit.Run(t, "", "--git-dir", bare, "rev-list", "--count", record.Ref); n != "2" {
		t.Errorf("the remote's record has %s commits, want 2", n)
	}
	other := filepath.Join(t.TempDir(), "other")
	testgit.Run(t, "", "clone", "-q", bare, other)
	testgit.Run(t, other, "fetch", "-q", "origin", record.Refspec("origin"))
	es, err := (&record.Log{Git: git.Exec{Dir: other, Env: testgit.Env}, Dir: other, Remote: "origin"}).Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]record.Entry{passed, step}, es.Of(patch), opt); diff != "" {
		t.Errorf("read in another clone (-want +got):\n%s", diff)
	}
}

// TestAppendTrackingExclusive: Append moves the remote's tracking ref to
// what it pushed only inside Log.Exclusive (one at a time with the
// caller's fetches, which write that ref too: a fetch beside it failed
// "cannot lock ref", and CI's run exited 5 in the soak test).
func TestAppendTrackingExclusive(t *testing.T) {
	c, _ := newClone(t)
	ctx := context.Background()
	l := c.log()
	var inside, calls int
	l.Exclusive = func(f func() error) error {
		calls++
		inside++
		defer func() { inside-- }()
		return f()
	}
	tracking := func() string {
		out, _ := c.g.Run(ctx, "rev-parse", "-q", "--verify", record.Tracking("origin"))
		return strings.TrimSpace(out)
	}
	g := c.g
	l.Git = runnerFunc(func(ctx context.Context, args ...string) (string, error) {
		if len(args) > 1 && args[0] == "update-ref" && args[1] == record.Tracking("origin") && inside == 0 {
			t.Errorf("git %s outside Exclusive", strings.Join(args, " "))
		}
		return g.Run(ctx, args...)
	})
	if err := l.Append(ctx, c.entry(record.KindStep, time.Date(2026, 11, 29, 1, 0, 0, 0, time.UTC))); err != nil {
		t.Fatal(err)
	}
	if calls == 0 {
		t.Errorf("Append never ran Exclusive")
	}
	if head := testgit.Run(t, c.dir, "rev-parse", record.Ref); tracking() != head {
		t.Errorf("the tracking ref is %q, want the pushed record %s", tracking(), head)
	}
}

// runnerFunc is a git.Runner.
type runnerFunc func(ctx context.Context, args ...string) (string, error)

func (f runnerFunc) Run(ctx context.Context, args ...string) (string, error) { return f(ctx, args...) }

// TestAppendRace: another clone recorded meanwhile; the push is refused
// and the entries go on top of the remote's: both kept, nothing forced.
func TestAppendRace(t *testing.T) {
	c, bare := newClone(t)
	o := c.another(bare)
	t0 := time.Date(2026, 11, 29, 1, 0, 0, 0, time.UTC)
	if err := o.log().Append(context.Background(), o.entry(record.KindStep, t0)); err != nil {
		t.Fatal(err)
	}
	if err := c.log().Append(context.Background(), c.entry(record.KindPassed, t0.Add(time.Minute))); err != nil {
		t.Fatal(err)
	}
	if n := testgit.Run(t, "", "--git-dir", bare, "rev-list", "--count", record.Ref); n != "2" {
		t.Errorf("the remote's record has %s commits, want 2 (the other clone's, then this one's)", n)
	}
	var kinds []string
	for _, e := range c.read().Of(patch) {
		kinds = append(kinds, e.Kind)
	}
	if want := []string{record.KindPassed, record.KindStep}; !cmp.Equal(kinds, want) {
		t.Errorf("kinds %q, want %q", kinds, want)
	}
}

// TestAppendGrowsWithSteps: the record grows with what happened, not
// with runs. Clones that record in turn beside each other push each entry
// once (a clone put its entries, already pushed, on its older fetch of
// the remote's record and pushed them again: 334 entries held twice in
// the soak test's 40 events); an entry that says nothing new (a --once
// run settling a step whose verdict is recorded) is not written; an
// entry held twice by a record written before reads once.
func TestAppendGrowsWithSteps(t *testing.T) {
	ctx := context.Background()
	c, bare := newClone(t)
	o := c.another(bare)
	t0 := time.Date(2026, 11, 29, 1, 0, 0, 0, time.UTC)
	step := c.entry(record.KindStep, t0)
	passed := c.entry(record.KindPassed, t0.Add(time.Minute))
	passed.Checks = []record.Check{{Name: "smoke", Definition: "0123456789abcdef", Passed: true}}
	failed := c.entry(record.KindFailed, t0.Add(4*time.Minute))
	failed.Failures = []string{"integration/us-east1: check smoke: exit status 1"}
	minutes := 0
	later := c.entry(record.KindStep, t0.Add(5*time.Minute))
	later.Node = "integration/eu-west1"
	for i, w := range []struct {
		c *clone
		e record.Entry
	}{{c, step}, {o, passed}, {c, failed}, {o, later}} {
		if i == 2 {
			// c fetches the remote's record (with the branch, as the
			// rollouts do), then records and pushes: its fetch is older
			// than the remote's record from then on.
			testgit.Run(t, c.dir, "fetch", "-q", "origin", record.Refspec("origin"))
		}
		if err := w.c.later(&minutes).Append(ctx, w.e); err != nil {
			t.Fatal(err)
		}
	}
	// c records again, after o: its fetch of the remote's record is the
	// one from before its last entry.
	if err := c.later(&minutes).Append(ctx, c.entry(record.KindReverted, t0.Add(6*time.Minute))); err != nil {
		t.Fatal(err)
	}
	if n := testgit.Run(t, "", "--git-dir", bare, "rev-list", "--count", record.Ref); n != "5" {
		t.Errorf("the remote's record has %s commits after 5 entries from 2 clones in turn, want 5:\n%s", n,
			testgit.Run(t, "", "--git-dir", bare, "log", "--format=%s", record.Ref))
	}

	// The same verdict again (a --once run settling the step): nothing
	// new.
	if err := c.log().Append(ctx, c.entry(record.KindReverted, t0.Add(10*time.Minute))); err != nil {
		t.Fatal(err)
	}
	if n := testgit.Run(t, "", "--git-dir", bare, "rev-list", "--count", record.Ref); n != "5" {
		t.Errorf("a verdict that says nothing new was written: %s commits, want 5", n)
	}
	// A pass after the revert at the same step is new.
	repass := c.entry(record.KindPassed, t0.Add(11*time.Minute))
	repass.Checks = []record.Check{{Name: "smoke", Definition: "0123456789abcdef", Passed: true, Reason: "recorded 0123"}}
	if err := c.log().Append(ctx, repass); err != nil {
		t.Fatal(err)
	}
	if n := testgit.Run(t, "", "--git-dir", bare, "rev-list", "--count", record.Ref); n != "6" {
		t.Errorf("a pass after the revert was not written: %s commits, want 6", n)
	}

	// An entry held twice (two commits, one message) reads once.
	tip := testgit.Run(t, c.dir, "rev-parse", record.Ref)
	msg := testgit.Run(t, c.dir, "log", "-1", "--format=%B", tip)
	dup := testgit.Run(t, c.dir, "commit-tree", "-p", tip, "-m", msg, "4b825dc642cb6eb9a060e54bf8d69288fbee4904")
	testgit.Run(t, c.dir, "update-ref", record.Ref, dup)
	if n := len(c.read().Of(patch)); n != 6 {
		t.Errorf("read %d entries from a record holding one of 6 twice, want 6", n)
	}
}

// TestAppendSameStepTwice: two runs that took the same step in the same
// second (the writer found its commit already pushed: writer.Repo.Landed)
// record the same fact; the second, which fetched the first's record
// with the branch, writes nothing (the soak test found such an entry
// held twice: a step entry was written without looking).
func TestAppendSameStepTwice(t *testing.T) {
	ctx := context.Background()
	c, bare := newClone(t)
	o := c.another(bare)
	t0 := time.Date(2026, 11, 29, 1, 0, 0, 0, time.UTC)
	if err := o.log().Append(ctx, o.entry(record.KindStep, t0)); err != nil {
		t.Fatal(err)
	}
	testgit.Run(t, c.dir, "fetch", "-q", "origin", record.Refspec("origin"))
	if err := c.log().Append(ctx, c.entry(record.KindStep, t0)); err != nil {
		t.Fatal(err)
	}
	if n := testgit.Run(t, "", "--git-dir", bare, "rev-list", "--count", record.Ref); n != "1" {
		t.Errorf("the remote's record has %s commits after one step recorded by two runs, want 1:\n%s", n,
			testgit.Run(t, "", "--git-dir", bare, "log", "--format=%B", record.Ref))
	}
}

// TestTrusted: only an entry tied to a step strata pushed, and to the
// rendered output it claims, counts.
func TestTrusted(t *testing.T) {
	c, _ := newClone(t)
	ctx := context.Background()
	t0 := time.Date(2026, 11, 29, 1, 0, 0, 0, time.UTC)
	c.write("config/workload/other/values.yaml", "applications: {}\n")
	person := c.commit("a person's commit\n\nStrata-Rollout: workload/other/patch-001")
	c.write("rendered/workload/integration/us-east1/values.yaml", "demo: 1.2.0\n")
	later := c.commit("a later commit")
	for _, tc := range []struct {
		name string
		edit func(e *record.Entry)
		want string
	}{
		{"strata's own", func(*record.Entry) {}, ""},
		{"another patch's commit", func(e *record.Entry) { e.Step = person }, "is not a step of workload/demo/patch-001's rollout"},
		{"a rendered tree it does not have", func(e *record.Entry) { e.Tree = strings.Repeat("0", 32) }, "is not the one it claims"},
		{"a commit of no branch", func(e *record.Entry) {
			// Its rendered output is none of the branch's: no copy of it
			// there either.
			testgit.Run(t, c.dir, "checkout", "-q", "-b", "side", c.step)
			c.write("rendered/workload/integration/us-east1/values.yaml", "demo: 9.9.9\n")
			side := c.commit("side\n\nStrata-Rollout: " + patch)
			testgit.Run(t, c.dir, "checkout", "-q", "main")
			e.Step = side
			var err error
			if e.Tree, err = record.TreeOf(ctx, c.g, side, e.Targets); err != nil {
				t.Fatal(err)
			}
		}, "is not on this branch's history"},
		{"a revert it does not name", func(e *record.Entry) { e.Kind = record.KindReverted }, "names no revert"},
		{"a revert on the branch", func(e *record.Entry) { e.Kind, e.Revert = record.KindReverted, later }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := c.entry(record.KindFailed, t0)
			tc.edit(&e)
			if err := c.log().Append(ctx, e); err != nil {
				t.Fatal(err)
			}
			err := c.read().Trusted(ctx, c.read().Of(patch)[0])
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("Trusted: %v, want %q", err, tc.want)
			}
		})
	}
}

// TestTrustedFollowsARewrite: a rewrite of the branch (a force-push that
// rewords an older commit) makes strata's step and revert again with new
// hashes; their record is tied to the copies (the patch's trailer,
// rendered tree and files), and a failed step whose revert's record is
// missing still holds while the patch's files are those before it.
func TestTrustedFollowsARewrite(t *testing.T) {
	c, _ := newClone(t)
	ctx := context.Background()
	t0 := time.Date(2026, 11, 29, 1, 0, 0, 0, time.UTC)
	before := c.step
	c.write("config/workload/demo/integration/us-east1/patch-001.yaml", "applications: {demo: {source: {targetRevision: 1.2.0}}}\n")
	c.write("rendered/workload/integration/us-east1/values.yaml", "demo: 1.2.0\n")
	c.step = c.commit("Promote patch-001\n\nStrata-Rollout: " + patch)
	failed := c.entry(record.KindFailed, t0)
	testgit.Run(t, c.dir, "revert", "--no-edit", c.step)
	reverted := c.entry(record.KindReverted, t0.Add(time.Minute))
	reverted.Revert = testgit.Run(t, c.dir, "rev-parse", "HEAD")
	reverted.PatchFiles, _ = record.FilesOf(ctx, c.g, reverted.Revert, patch)
	if err := c.log().Append(ctx, failed, reverted); err != nil {
		t.Fatal(err)
	}
	// The first commit reworded: every later one made again.
	root := testgit.Run(t, c.dir, "rev-list", "--max-parents=0", "HEAD")
	testgit.Run(t, c.dir, "checkout", "-q", "--detach", root)
	testgit.Run(t, c.dir, "commit", "-q", "--amend", "--allow-empty", "-m", "reworded")
	testgit.Run(t, c.dir, "rebase", "-q", "--onto", "HEAD", root, "main")
	copyOf := func(rev string) string { return testgit.Run(t, c.dir, "rev-parse", rev) }
	rec := c.read()
	es := rec.Of(patch)
	if len(es) != 2 {
		t.Fatalf("read %d entries, want 2", len(es))
	}
	for _, e := range es {
		if err := rec.Trusted(ctx, e); err != nil {
			t.Errorf("%s entry after the rewrite: %v", e.Kind, err)
		}
	}
	step, revert := rec.CommitsOf(ctx, es[0])
	if want := [2]string{copyOf("HEAD~1"), copyOf("HEAD")}; [2]string{step, revert} != want {
		t.Errorf("CommitsOf the revert's entry: %.12s, %.12s; want the copies %.12s, %.12s", step, revert, want[0], want[1])
	}
	if step == c.step || revert == reverted.Revert {
		t.Errorf("CommitsOf names the commits the rewrite replaced")
	}
	// Naming finds the entry by the copy, and no longer by the old hash.
	if e, ok := rec.Naming(ctx, patch, record.KindReverted, revert); !ok || e.Kind != record.KindReverted {
		t.Errorf("Naming the revert's copy: %v, %v; want the revert's entry", e.Kind, ok)
	}
	if _, ok := rec.Naming(ctx, patch, record.KindReverted, reverted.Revert); ok {
		t.Errorf("Naming the replaced revert finds an entry")
	}
	if _, ok := rec.Naming(ctx, patch, record.KindFailed, revert); ok {
		t.Errorf("Naming the revert's copy as a failed step finds an entry")
	}
	// The failed step, its revert's record aside: it holds while the
	// patch's files are those before it (HEAD's), not once they change.
	files, _ := record.FilesOf(ctx, c.g, "HEAD", patch)
	if was, _ := record.FilesOf(ctx, c.g, before, patch); files != was {
		t.Fatalf("the revert did not bring the patch's files back")
	}
	if !rec.Holds(ctx, es[1], files) {
		t.Errorf("Holds: the failed step does not hold, its step undone and the patch unchanged")
	}
	if rec.Holds(ctx, es[1], "changed") {
		t.Errorf("Holds: the failed step holds for files it never had")
	}
}

// TestReadSkipsWhatIsNoEntry: a commit pushed to the ref by hand whose
// message is no entry is not read.
func TestReadSkipsWhatIsNoEntry(t *testing.T) {
	c, _ := newClone(t)
	tree := testgit.Run(t, c.dir, "rev-parse", "HEAD^{tree}")
	forged := testgit.Run(t, c.dir, "commit-tree", tree, "-m", "not json")
	testgit.Run(t, c.dir, "update-ref", record.Ref, forged)
	if got := c.read().Of(patch); len(got) != 0 {
		t.Errorf("read %d entries, want none", len(got))
	}
}

// TestFilesOf: the patch's files by content, whatever else changes.
func TestFilesOf(t *testing.T) {
	c, _ := newClone(t)
	ctx := context.Background()
	before, err := record.FilesOf(ctx, c.g, "HEAD", patch)
	if err != nil {
		t.Fatal(err)
	}
	c.write("config/workload/demo/values.yaml", "applications: {}\n")
	c.write("config/workload/demo/integration/us-east1/patch-002.yaml", "applications: {}\n")
	c.commit("other files")
	if same, _ := record.FilesOf(ctx, c.g, "HEAD", patch); same != before {
		t.Errorf("other files changed the patch's: %s, was %s", same, before)
	}
	c.write("config/workload/demo/integration/us-east1/patch-001.yaml", "applications: {demo: {source: {targetRevision: 1.1.1}}}\n")
	c.commit("the patch")
	if changed, _ := record.FilesOf(ctx, c.g, "HEAD", patch); changed == before {
		t.Errorf("the patch's files changed, their id did not")
	}
}

// TestTrustedWhereTheRepositorySigns: a repository that signs its commits
// (commit.gpgSign) takes no unsigned entry, whoever pushed it.
func TestTrustedWhereTheRepositorySigns(t *testing.T) {
	c, _ := newClone(t)
	ctx := context.Background()
	if err := c.log().Append(ctx, c.entry(record.KindPassed, time.Date(2026, 11, 29, 1, 0, 0, 0, time.UTC))); err != nil {
		t.Fatal(err)
	}
	testgit.Run(t, c.dir, "config", "commit.gpgSign", "true")
	// A Log without Dir reads the setting again (a Log with one reads it
	// once a process).
	rec, err := (&record.Log{Git: c.g, Remote: "origin"}).Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	err = rec.Trusted(ctx, rec.Of(patch)[0])
	if err == nil || !strings.Contains(err.Error(), "is not signed with a good signature") {
		t.Errorf("Trusted: %v, want an unsigned entry refused", err)
	}
}
