package rollout

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/git"
)

// A repository without a remote keeps the note of the checks that passed,
// and reads it back; lines that are not records (a note written by hand)
// are no record.
func TestCheckNotesWithoutRemote(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fleet")
	env := []string{"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"}
	for _, args := range [][]string{{"init", "-q", "-b", "main", dir}, {"-C", dir, "commit", "-q", "--allow-empty", "-m", "a step"}} {
		cmd := exec.Command("git", args...)
		cmd.Env = append(cmd.Environ(), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	ctx := context.Background()
	r := &repo{git: git.Repo{Git: git.Exec{Dir: dir, Env: env}}, dir: dir}
	commit, err := r.head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.run(ctx, "notes", "--ref", NotesRef, "add", "-m", "checked by hand", commit); err != nil {
		t.Fatal(err)
	}
	smoke := fleet.Check{Name: "smoke", Command: "./smoke.sh", Timeout: time.Minute}
	rec := checkRecord{Check: "smoke", Definition: checkDefinition(smoke), Patch: "workload/demo/patch-001", Step: "integration",
		Passed: time.Date(2026, 11, 27, 5, 30, 0, 0, time.UTC), Host: "ci"}
	if err := r.recordChecks(ctx, commit, []checkRecord{rec}, time.Millisecond); err != nil {
		t.Fatal(err)
	}
	want := map[string]checkRecord{rec.key(): rec}
	if d := cmp.Diff(want, r.passedChecks(ctx, commit)); d != "" {
		t.Errorf("passed checks (-want +got):\n%s", d)
	}
	smoke.Timeout = 2 * time.Minute
	if checkDefinition(smoke) == rec.Definition {
		t.Errorf("a check with another timeout has the same definition")
	}
}
