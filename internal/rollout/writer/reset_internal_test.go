package writer

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/testing/testgit"
)

// A replay moves to the remote's new commit with ResetKeep. A rendered
// file rewritten with the same content (a render of the step's targets)
// is stat-dirty in the index: git reset --keep refused it as "not
// uptodate" and the replay ended with the clone on its unpushed step
// (the soak test). ResetKeep refreshes the index first; a file that
// really changed is still kept, and refused.
func TestResetKeepStatDirty(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	testgit.Run(t, "", "init", "-q", "-b", "main", dir)
	file := filepath.Join(dir, "rendered.yaml")
	write := func(data string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a: 1\n")
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "one")
	write("a: 2\n")
	testgit.Run(t, dir, "commit", "-q", "-am", "two")
	upstream := testgit.Run(t, dir, "rev-parse", "HEAD")
	testgit.Run(t, dir, "reset", "-q", "--hard", "HEAD~1")
	testgit.Run(t, dir, "update-index", "-q", "--refresh")

	// Rewritten with the same content, later: only its stat changed.
	write("a: 1\n")
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(file, later, later); err != nil {
		t.Fatal(err)
	}
	r := &Repo{Git: git.Repo{Git: git.Exec{Dir: dir, Env: testgit.Env}}, Dir: dir}
	if err := r.ResetKeep(ctx, upstream); err != nil {
		t.Fatalf("ResetKeep over a stat-dirty file: %v", err)
	}
	if head := testgit.Run(t, dir, "rev-parse", "HEAD"); head != upstream {
		t.Fatalf("HEAD %s, want %s", head, upstream)
	}

	// A real change of the file is kept, and the move refused.
	testgit.Run(t, dir, "reset", "-q", "--hard", "HEAD~1")
	write("a: 3\n")
	if err := r.ResetKeep(ctx, upstream); err == nil {
		t.Fatal("ResetKeep moved over a changed file")
	}
	if data, _ := os.ReadFile(file); string(data) != "a: 3\n" {
		t.Fatalf("the change was lost: %q", data)
	}
}
