package action_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/action"
	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/output"
	"github.com/strata-fleet/strata/internal/promote"
	"github.com/strata-fleet/strata/internal/render"
	"github.com/strata-fleet/strata/internal/testing/testgit"
)

// A fleet with two cluster types, edge placed only at dev and
// prod/eu-west1 (at:): 4 mc targets and 2 edge targets, 6 in all, while
// the sequence has 4 leaves.
var fixture = map[string]string{
	"config/config.yaml": `dimensions: [environments, regions]
sequence:
  environments:
    - name: dev
      regions: [us-east1]
    - name: staging
      regions: [us-east1]
    - name: prod
      regions: [us-east1, eu-west1]
cluster_types:
  - name: mc
  - name: edge
    at: [dev, prod/eu-west1]
`,
	"config/mc/defaults.yaml":   "applications:\n  default:\n    project: default\n    destination: {name: in-cluster}\n",
	"config/edge/defaults.yaml": "applications:\n  default:\n    project: default\n    destination: {name: in-cluster}\n",
	"config/mc/podinfo/values.yaml": `applications:
  podinfo:
    source: {repoURL: https://stefanprodan.github.io/podinfo, chart: podinfo, targetRevision: 6.7.1}
    destination: {namespace: podinfo}
`,
	"config/edge/podinfo/values.yaml": `applications:
  podinfo:
    source: {repoURL: https://stefanprodan.github.io/podinfo, chart: podinfo, targetRevision: 6.7.1}
    destination: {namespace: podinfo}
`,
}

const patch = `metadata:
  description: podinfo 6.8.0
  owner: team-edge
  ticket: OPS-7
applications:
  podinfo:
    source:
      targetRevision: 6.8.0
`

// newFleet writes the fixture, renders it and commits it; the local state
// goes to a directory of its own.
func newFleet(t *testing.T) (*action.Repo, git.Repo) {
	t.Helper()
	t.Setenv("STRATA_CACHE_DIR", t.TempDir())
	dir := t.TempDir()
	for name, data := range fixture {
		writeFile(t, dir, name, data)
	}
	renderAll(t, dir)
	g := git.Repo{Git: git.Exec{Dir: dir, Env: testgit.Env}}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "first"}} {
		if _, err := g.Out(context.Background(), args...); err != nil {
			t.Fatal(err)
		}
	}
	r, err := action.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, g
}

func writeFile(t *testing.T, dir, name, data string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func renderAll(t *testing.T, dir string) {
	t.Helper()
	statePath, _ := output.StatePath(dir)
	if _, err := output.Run(output.Options{Root: dir, StatePath: statePath}); err != nil {
		t.Fatal(err)
	}
}

func subject(msg string) string { s, _, _ := strings.Cut(msg, "\n"); return s }

// A patch's first copy rendered by hand before the step: the step's own
// render changes nothing, and the commit still counts the targets whose
// rendered files it commits, of the targets render renders (6, not the
// sequence's 4 leaves), with the patch's metadata.
func TestCommitCountsWhatTheCommitChanges(t *testing.T) {
	r, g := newFleet(t)
	writeFile(t, r.Dir, "config/edge/podinfo/dev/us-east1/patch-001.yaml", patch)
	renderAll(t, r.Dir) // by hand, before the step
	ops, err := promote.NewDirOps(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	step := &action.Step{Dir: r.Dir, FS: r.FS, Ops: ops, Retry: "try again"}
	res, err := step.Render(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Plan.Empty() {
		t.Fatalf("the step's render changed %d files; want none (rendered by hand before)", len(res.Plan.Changes))
	}
	meta, err := promote.ReadMeta("patch-001.yaml", []byte(patch))
	if err != nil {
		t.Fatal(err)
	}
	done, err := step.Commit(context.Background(), nil, action.Commit{Git: g, Paths: []string{"config", render.OutputDir},
		ClusterType: "edge", Component: "podinfo", Subject: "Start patch-001 of edge/podinfo at dev/us-east1", Meta: meta,
		Trailers: []string{"Strata-Rollout: edge/podinfo/patch-001"}})
	if err != nil {
		t.Fatal(err)
	}
	want := &action.Committed{Commit: done.Commit, Message: done.Message, Changed: []string{"edge/dev/us-east1"}, Total: 6}
	if d := cmp.Diff(want, done); d != "" {
		t.Errorf("committed (-want +got):\n%s", d)
	}
	if got, want := subject(done.Message), "Start patch-001 of edge/podinfo at dev/us-east1: 1 of 6 targets' rendered output changed"; got != want {
		t.Errorf("subject %q, want %q", got, want)
	}
	for _, w := range []string{"podinfo 6.8.0\n", "Owner: team-edge\n", "Ticket: OPS-7\n", "Rendered output changed at:\n  edge/dev/us-east1\n", "Strata-Rollout: edge/podinfo/patch-001"} {
		if !strings.Contains(done.Message, w) {
			t.Errorf("message lacks %q:\n%s", w, done.Message)
		}
	}
	files, err := g.Out(context.Background(), "show", "--name-only", "--format=", "HEAD", "--", render.OutputDir)
	if err != nil {
		t.Fatal(err)
	}
	if files == "" {
		t.Errorf("the commit changes no rendered file")
	}
}

// A step run whole: promoted, rendered and committed, with promote's
// subject and the same denominator.
func TestRunCommitsTheStep(t *testing.T) {
	r, g := newFleet(t)
	writeFile(t, r.Dir, "config/edge/podinfo/dev/patch-001.yaml", patch)
	renderAll(t, r.Dir)
	if _, err := g.Out(context.Background(), "add", "-A"); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Out(context.Background(), "commit", "-q", "-m", "the patch"); err != nil {
		t.Fatal(err)
	}
	f, err := r.LoadComponent("edge", "podinfo")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := promote.Prepare(f, promote.Options{ClusterType: "edge", Component: "podinfo", Patch: "patch-001"})
	if err != nil {
		t.Fatal(err)
	}
	ops, err := promote.NewDirOps(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	step := &action.Step{Dir: r.Dir, FS: r.FS, Ops: ops, Config: f.Config, Retry: "try again"}
	_, done, err := step.Run(context.Background(), plan, action.Commit{Git: g, Paths: []string{"config/edge/podinfo", render.OutputDir}})
	if err != nil {
		t.Fatal(err)
	}
	want := "Promote patch-001 of edge/podinfo to prod/eu-west1, coalesce it at prod, fold it into config/edge/podinfo/values.yaml: 1 of 6 targets' rendered output changed"
	if got := subject(done.Message); got != want {
		t.Errorf("subject %q, want %q", got, want)
	}
	if j, err := promote.Pending(ops); err != nil || j != nil {
		t.Errorf("the promotion's journal is left after the step: %v %v", j, err)
	}
	dirty, err := g.Dirty(context.Background(), "config", render.OutputDir)
	if err != nil || len(dirty) > 0 {
		t.Errorf("uncommitted after the step: %v %v", dirty, err)
	}
}

// A planned commit (rollout's) stages only the rendered directories the
// plan can change, so git walks the step's targets and not the fleet's:
// a change elsewhere under rendered/ is neither staged nor committed.
func TestPlannedCommitTakesThePlansDirs(t *testing.T) {
	r, g := newFleet(t)
	writeFile(t, r.Dir, "config/edge/podinfo/dev/patch-001.yaml", patch)
	renderAll(t, r.Dir)
	for _, args := range [][]string{{"add", "-A"}, {"commit", "-q", "-m", "the patch"}} {
		if _, err := g.Out(context.Background(), args...); err != nil {
			t.Fatal(err)
		}
	}
	stray := "rendered/mc/dev/us-east1/stray.yaml"
	writeFile(t, r.Dir, stray, "stray: true\n")
	f, err := r.LoadComponent("edge", "podinfo")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := promote.Prepare(f, promote.Options{ClusterType: "edge", Component: "podinfo", Patch: "patch-001"})
	if err != nil {
		t.Fatal(err)
	}
	ops, err := promote.NewDirOps(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	step := &action.Step{Dir: r.Dir, FS: r.FS, Ops: ops, Config: f.Config, Retry: "try again"}
	_, done, err := step.Run(context.Background(), plan, action.Commit{Git: g, Paths: []string{"config", render.OutputDir}, Planned: true})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"edge/prod/eu-west1"}, done.Changed); d != "" {
		t.Errorf("changed (-want +got):\n%s", d)
	}
	files, err := g.Out(context.Background(), "show", "--name-only", "--format=", "HEAD", "--", render.OutputDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range strings.Fields(files) {
		if !strings.HasPrefix(f, "rendered/edge/prod/") {
			t.Errorf("the commit takes %s, outside the plan's directories", f)
		}
	}
	dirty, err := g.Dirty(context.Background(), render.OutputDir)
	if err != nil || len(dirty) != 1 || !strings.HasSuffix(dirty[0], stray) {
		t.Errorf("uncommitted after the step: %v %v; want only %s", dirty, err, stray)
	}
}
