package live_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/render"
	"github.com/strata-fleet/strata/internal/testing/testgit"
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

// TestHistoryOfALayoutsRoot: the history read is that of the output root
// config.yaml's layout names, and only that: a commit that changed only
// files elsewhere (rendered/ included) is no change of the rendered tree.
func TestHistoryOfALayoutsRoot(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("argocd/rendered/prod/eu/mc-manifests/values.yaml", "a: 1\n")
	write("rendered/mc/prod/eu/values.yaml", "a: 1\n")
	testgit.Run(t, dir, "init", "-q", "-b", "main")
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "the fleet")
	first := testgit.Run(t, dir, "rev-parse", "HEAD")
	write("rendered/mc/prod/eu/values.yaml", "a: 2\n")
	testgit.Run(t, dir, "commit", "-q", "-am", "not the rendered tree")
	write("argocd/rendered/prod/eu/mc-manifests/templates/new.yaml", "b: 1\n")
	h, err := live.ReadHistory(dir, "argocd/rendered")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file, commit string
		dirty        bool
	}{
		{"argocd/rendered/prod/eu/mc-manifests/values.yaml", first, false},
		{"argocd/rendered/prod/eu/mc-manifests/templates/new.yaml", "", true},
		{"rendered/mc/prod/eu/values.yaml", "", false},
	} {
		if got, dirty := h.LastChange(tc.file); got != tc.commit || dirty != tc.dirty {
			t.Errorf("LastChange(%s) = %q, uncommitted %v; want %q, %v", tc.file, got, dirty, tc.commit, tc.dirty)
		}
	}
}
