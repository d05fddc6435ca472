package localstate_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-fleet/strata/internal/localstate"
)

// Two names of one checkout (one through a symbolic link) share their
// state; two checkouts do not; the state is under $STRATA_CACHE_DIR.
func TestDirIsKeyedByTheResolvedPath(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("STRATA_CACHE_DIR", cache)
	base := t.TempDir()
	repo, other, link := filepath.Join(base, "repo"), filepath.Join(base, "other"), filepath.Join(base, "link")
	for _, d := range []string{repo, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(repo, link); err != nil {
		t.Fatal(err)
	}
	dir := func(p string) string {
		d, err := localstate.Dir(p)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if dir(repo) != dir(link) {
		t.Errorf("a checkout and a link to it have different state: %s, %s", dir(repo), dir(link))
	}
	if dir(repo) == dir(other) {
		t.Errorf("two checkouts share %s", dir(repo))
	}
	if !strings.HasPrefix(dir(repo), filepath.Join(cache, "repos")+string(filepath.Separator)) {
		t.Errorf("Dir = %s, want it under $STRATA_CACHE_DIR/repos", dir(repo))
	}
}
