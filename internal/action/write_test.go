package action_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/strata-fleet/strata/internal/action"
	"github.com/strata-fleet/strata/internal/freeze"
	"github.com/strata-fleet/strata/internal/hint"
	"github.com/strata-fleet/strata/internal/pin"
	"github.com/strata-fleet/strata/internal/promote"
	"github.com/strata-fleet/strata/internal/testing/testgit"
)

// committedFiles lists the files commit changes against its parent.
func committedFiles(t *testing.T, dir, commit string) []string {
	t.Helper()
	return strings.Fields(testgit.Run(t, dir, "diff-tree", "--no-commit-id", "--name-only", "-r", commit))
}

// A freeze commits config/freezes.yaml alone: a change staged beside it
// stays staged, not committed; the unfreeze lifts it in a commit of its
// own, naming who froze it.
func TestFreezeCommitsTheFileAlone(t *testing.T) {
	testgit.Setenv(t)
	r, _ := newFleet(t)
	ctx := context.Background()
	writeFile(t, r.Dir, "config/mc/podinfo/values.yaml", "applications:\n  podinfo: {source: {targetRevision: 9.9.9}}\n")
	testgit.Run(t, r.Dir, "add", "config/mc/podinfo/values.yaml")
	at := time.Date(2026, 11, 29, 1, 2, 3, 0, time.UTC)

	res, err := (&action.Freeze{Node: "prod", Reason: "INC-1: failover\nmore", By: "Jane <jane@example.com>", Now: func() time.Time { return at }}).Run(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if res.Frozen == nil || res.Frozen.Node != "prod" || !res.Frozen.At.Equal(at) || len(res.Freezes) != 1 {
		t.Fatalf("freeze: %+v, want prod frozen at %s, one freeze", res, at)
	}
	if res.Subject != "Freeze prod: INC-1: failover" {
		t.Errorf("subject %q", res.Subject)
	}
	if got := committedFiles(t, r.Dir, res.Commit); !slices.Equal(got, []string{freeze.File}) {
		t.Errorf("the freeze's commit changes %q, want %s alone", got, freeze.File)
	}
	if staged := testgit.Run(t, r.Dir, "diff", "--cached", "--name-only"); staged != "config/mc/podinfo/values.yaml" {
		t.Errorf("staged after the freeze: %q, want the other change still staged", staged)
	}

	res, err = (&action.Freeze{Unfreeze: true, Node: "prod", By: "Joe <joe@example.com>"}).Run(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if res.Unfrozen == nil || res.Unfrozen.By != "Jane <jane@example.com>" || len(res.Freezes) != 0 {
		t.Fatalf("unfreeze: %+v, want Jane's freeze lifted, none left", res)
	}
	msg := testgit.Run(t, r.Dir, "log", "-1", "--format=%B", res.Commit)
	if !strings.HasPrefix(msg, "Unfreeze prod\n") || !strings.Contains(msg, "Unfrozen-by: Joe <joe@example.com>") {
		t.Errorf("unfreeze's message:\n%s", msg)
	}
}

// A freeze refuses to commit over a change to config/freezes.yaml it did
// not make, and an unknown node, before it writes anything.
func TestFreezeRefusesBeforeWriting(t *testing.T) {
	testgit.Setenv(t)
	r, _ := newFleet(t)
	ctx := context.Background()
	writeFile(t, r.Dir, freeze.File, "freezes: []\n")
	head := testgit.Run(t, r.Dir, "rev-parse", "HEAD")
	if _, err := (&action.Freeze{Reason: "x"}).Run(ctx, r); err == nil || !strings.Contains(err.Error(), "has uncommitted changes") {
		t.Errorf("over an uncommitted %s: %v, want it refused", freeze.File, err)
	}
	if _, err := (&action.Freeze{Node: "prodd", Reason: "x", NoCommit: true}).Run(ctx, r); err == nil || !strings.Contains(err.Error(), `unknown node "prodd"`) {
		t.Errorf("an unknown node: %v, want it refused", err)
	}
	if got := testgit.Run(t, r.Dir, "rev-parse", "HEAD"); got != head {
		t.Errorf("HEAD moved to %s", got)
	}
	if data := readFile(t, r.Dir, freeze.File); data != "freezes: []\n" {
		t.Errorf("%s was rewritten: %q", freeze.File, data)
	}
}

// patch new names the commands to run next as data: render, then the
// promotion once the patch holds a change.
func TestNewPatchNamesWhatComesNext(t *testing.T) {
	r, _ := newFleet(t)
	opts := promote.NewPatchOptions{ClusterType: "mc", Component: "podinfo", At: "dev", Meta: promote.PatchMeta{Description: "bump"}}
	res, err := (&action.NewPatch{Options: opts, DryRun: true}).Run(r)
	if err != nil {
		t.Fatal(err)
	}
	if got := commands(res.Next); !slices.Equal(got, []string{"strata render"}) || !res.Empty {
		t.Errorf("an empty patch: next %q (empty %v), want render alone", got, res.Empty)
	}
	if data := readFile(t, r.Dir, res.Path); data != "" {
		t.Errorf("a dry run wrote %s", res.Path)
	}
	opts.Body = []byte("applications:\n  podinfo:\n    source: {targetRevision: 6.8.0}\n")
	res, err = (&action.NewPatch{Options: opts}).Run(r)
	if err != nil {
		t.Fatal(err)
	}
	if got := commands(res.Next); !slices.Equal(got, []string{"strata render", "strata promote mc podinfo " + res.Patch}) {
		t.Errorf("a patch with a change: next %q", got)
	}
	if data := readFile(t, r.Dir, res.Path); data != string(res.Data) {
		t.Errorf("%s holds %q, want the patch", res.Path, data)
	}
}

// pin --commit on a branch commits config.yaml and rendered/, and the
// gate's approval; a gate not approved changes nothing.
func TestPinCommitsOnABranch(t *testing.T) {
	testgit.Setenv(t)
	r, _ := newFleet(t)
	ctx := context.Background()
	head := testgit.Run(t, r.Dir, "rev-parse", "HEAD")
	a := &action.Pin{Options: pin.Options{Node: "staging", Revision: head}, Commit: true, Branch: "pin/staging", Approver: "Jane <jane@example.com>"}
	res, err := a.Run(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	if res.Commit == nil || res.Commit.Branch != "pin/staging" || res.Rendered == nil {
		t.Fatalf("pin: %+v, want it rendered and committed on pin/staging", res)
	}
	if want := "Pin staging to " + head[:12]; subject(res.Commit.Message) != want {
		t.Errorf("subject %q, want %q", subject(res.Commit.Message), want)
	}
	for _, f := range committedFiles(t, r.Dir, res.Commit.Commit) {
		if f != "config/config.yaml" && !strings.HasPrefix(f, "rendered/") {
			t.Errorf("the pin's commit changes %s", f)
		}
	}
	if branch := testgit.Run(t, r.Dir, "symbolic-ref", "--short", "HEAD"); branch != "pin/staging" {
		t.Errorf("HEAD on %s", branch)
	}
}

func commands(cmds []hint.Command) []string {
	out := make([]string, len(cmds))
	for i, c := range cmds {
		out[i] = c.String()
	}
	return out
}

func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// render --check lists what is out of date and writes nothing; a render
// then brings rendered/ up to date, after which --check finds nothing.
func TestRenderCheckWritesNothing(t *testing.T) {
	r, _ := newFleet(t)
	writeFile(t, r.Dir, "config/mc/podinfo/values.yaml", strings.Replace(fixture["config/mc/podinfo/values.yaml"], "6.7.1", "6.7.2", 1))
	before := testgit.Run(t, r.Dir, "status", "--porcelain", "--", "rendered")

	res, err := (&action.Render{Check: true}).Run(r)
	if err != nil {
		t.Fatal(err)
	}
	if res.Plan.Empty() || res.Finished != nil {
		t.Errorf("check: plan empty %v, finished %v; want changes listed, no promotion finished", res.Plan.Empty(), res.Finished)
	}
	if after := testgit.Run(t, r.Dir, "status", "--porcelain", "--", "rendered"); after != before {
		t.Errorf("check changed rendered/:\n%s", after)
	}
	if _, err := (&action.Render{}).Run(r); err != nil {
		t.Fatal(err)
	}
	res, err = (&action.Render{Check: true}).Run(r)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Plan.Empty() {
		t.Errorf("after a render, check lists %d changes", len(res.Plan.Changes))
	}
}
