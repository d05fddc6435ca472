package live

import (
	"os"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/render"
	"github.com/strata-fleet/strata/internal/testing/testfleet"
)

// TestOwnerCache: the owners of a target's objects are found once, then
// read from the local state while the target's fingerprint is the same;
// a target whose fingerprint changes is asked again, and the answers of
// targets no longer asked about are dropped.
func TestOwnerCache(t *testing.T) {
	t.Setenv("STRATA_CACHE_DIR", t.TempDir())
	dir := t.TempDir()
	if err := testfleet.Write(dir); err != nil {
		t.Fatal(err)
	}
	r, err := render.Load(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	targets := r.Targets()
	var asked atomic.Int32
	owners := func(t render.Target) (map[string]render.Owner, error) {
		asked.Add(1)
		return r.Owners(t)
	}
	changed := ""
	fingerprint := func(t render.Target) [32]byte {
		fp := r.Fingerprint(t)
		if t.ID() == changed {
			fp[0]++
		}
		return fp
	}
	run := func(targets []render.Target) map[string]map[string]render.Owner {
		c := loadOwnerCache(dir)
		get := c.wrap(fingerprint, owners)
		out := map[string]map[string]render.Owner{}
		for _, tg := range targets {
			own, err := get(tg)
			if err != nil {
				t.Fatal(err)
			}
			out[tg.ID()] = own
		}
		c.save()
		return out
	}

	first := run(targets)
	if n := int(asked.Swap(0)); n != len(targets) {
		t.Fatalf("first run asked %d times, want %d (the targets)", n, len(targets))
	}
	if diff := cmp.Diff(first, run(targets)); diff != "" {
		t.Errorf("the second run's answers differ (-first +second):\n%s", diff)
	}
	if n := asked.Swap(0); n != 0 {
		t.Errorf("the second run asked %d times, want 0", n)
	}
	changed = targets[0].ID()
	run(targets)
	if n := asked.Swap(0); n != 1 {
		t.Errorf("after one target's fingerprint changed, asked %d times, want 1", n)
	}
	run(targets[1:])
	if c := loadOwnerCache(dir); len(c.old) != len(targets)-1 {
		t.Errorf("the file holds %d targets, want %d: those of the last run", len(c.old), len(targets)-1)
	}
}
