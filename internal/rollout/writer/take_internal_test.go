package writer

import (
	"context"
	"io/fs"
	"slices"
	"testing"

	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/record"
)

// TestTakePutBackFirst: the steps a hold put back (it ran out of time)
// come first in the next hold, before steps asked for since, even of
// patches earlier in the order; those come in patch order. Patch order
// alone would leave a late patch waiting while earlier ones keep asking.
func TestTakePutBackFirst(t *testing.T) {
	ask := func(patch string) *req { return &req{r: named("t/c/" + patch)} }
	w := &Writer{ready: make(chan struct{}, 1)}
	w.queue = []*req{ask("p3"), ask("p1")}
	first := w.take()
	w.queue = []*req{ask("p2"), ask("p0")} // asked for during the hold
	w.putBack(first[1:])                   // p3: the hold's time ran out
	var got []string
	for _, r := range w.take() {
		got = append(got, r.r.ID())
	}
	if want := []string{"t/c/p3", "t/c/p0", "t/c/p2"}; !slices.Equal(got, want) {
		t.Errorf("taken %q, want %q", got, want)
	}
}

// named is a Rollout known by its ID alone.
type named string

func (n named) ID() string { return string(n) }

func (named) Repo() *Repo                                             { return nil }
func (named) FS() fs.FS                                               { return nil }
func (named) OutputRoot() (string, error)                             { return "", nil }
func (named) Dirty(context.Context) ([]string, error)                 { return nil, nil }
func (named) Make(context.Context, []string, git.Repo) (*Step, error) { return nil, nil }
func (named) Remake(context.Context, *Step, string, string) error     { return nil }
func (named) Entry(context.Context, *Step) (record.Entry, error)      { return record.Entry{}, nil }
func (named) Record() *record.Log                                     { return nil }
func (named) Pushed(*Step)                                            {}
