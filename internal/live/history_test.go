package live_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/render"
	"github.com/strata-fleet/strata/internal/testgit"
)

// TestHistoryAdvance advances a history read from Git through more
// pushes than it looks up through before it copies: every file's last
// change is the last advance's that changed it, or Git's.
func TestHistoryAdvance(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a", "b", "c"} {
		p := filepath.Join(dir, "rendered", "t", f+".yaml")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	testgit.Run(t, dir, "init", "-q", "-b", "main")
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "the fleet")
	first := testgit.Run(t, dir, "rev-parse", "HEAD")
	h, err := live.ReadHistory(dir, render.OutputDir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"rendered/t/a.yaml": first, "rendered/t/b.yaml": first, "rendered/t/c.yaml": first, "rendered/t/d.yaml": ""}
	for i := range 40 {
		// Each push changes a (two commits: the second counts) and, every
		// third, b; d appears at the 20th.
		one, two := fmt.Sprintf("c%02d-1", i), fmt.Sprintf("c%02d-2", i)
		changes := []live.Changed{{Commit: one, Files: []string{"rendered/t/a.yaml"}}, {Commit: two, Files: []string{"rendered/t/a.yaml"}}}
		want["rendered/t/a.yaml"] = two
		if i%3 == 0 {
			changes[0].Files = append(changes[0].Files, "rendered/t/b.yaml")
			want["rendered/t/b.yaml"] = one
		}
		if i == 20 {
			changes[1].Files = append(changes[1].Files, "rendered/t/d.yaml")
			want["rendered/t/d.yaml"] = two
		}
		h = h.Advance(two, changes)
		if h.Head != two {
			t.Fatalf("advance %d: Head %s, want %s", i, h.Head, two)
		}
		for f, w := range want {
			if got, dirty := h.LastChange(f); got != w || dirty {
				t.Fatalf("advance %d: %s last changed by %q (uncommitted %v), want %q", i, f, got, dirty, w)
			}
		}
	}
}
