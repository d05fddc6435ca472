package writer

import (
	"io/fs"
	"maps"
	"path"
	"sync/atomic"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/render"
)

// Expectation is what the rendered output at one commit expects
// (live.Expect) and the history of rendered/ there: what the waits of
// the steps it holds join the Argo CDs' objects to.
type Expectation struct {
	// Head is the commit; Fleet the inventory the waits join with.
	Head     string
	Fleet    *fleet.Fleet
	own      live.Owned
	Expected []live.Expected
	History  *live.History
}

// expectationReads counts ReadExpectation's reads, for the tests
// (ExpectationReads).
var expectationReads atomic.Int64

// ExpectationReads is how many times this process read what the rendered
// output expects whole (ReadExpectation).
func ExpectationReads() int64 { return expectationReads.Load() }

// ReadExpectation reads what the rendered output of the work tree dir
// (fsys) expects, and the history of its rendered tree.
func ReadExpectation(fsys fs.FS, dir string) (*Expectation, error) {
	expectationReads.Add(1)
	rd, err := render.Load(fsys)
	if err != nil {
		return nil, err
	}
	own, err := live.Own(rd.Fleet, rd.Owners, nil)
	if err != nil {
		return nil, err
	}
	h, err := live.ReadHistory(dir, rd.Fleet.Config.OutputRoot())
	if err != nil {
		return nil, err
	}
	return &Expectation{Head: h.Head, Fleet: rd.Fleet, own: own, Expected: live.ExpectOwned(rd.Fleet, own), History: h}, nil
}

// advance returns the expectation at head, which commits made on e's
// head lead to, with nothing uncommitted after them: what the targets
// under dirs (the steps' Plan.RenderedDirs, all their config can
// change) render is asked again, the rest is e's; the history is e's
// advanced by changes. At 1,000 x 100 a whole read is about 10 s of a
// push, this a fraction of it (BENCHMARKS.md, delivery).
func (e *Expectation) advance(fsys fs.FS, head string, dirs []string, changes []live.Changed) (*Expectation, error) {
	rd, err := render.Load(fsys)
	if err != nil {
		return nil, err
	}
	// A target is under a step's node when its directory or one above it
	// is the node's: a few lookups a target, not one comparison per
	// directory of every step of the push (thousands in a wide wave).
	root := rd.Fleet.Config.OutputRoot()
	nodes := make(map[string]bool, len(dirs))
	for _, d := range dirs {
		nodes[d] = true
	}
	under := func(t render.Target) bool {
		for d := t.Dir(); d != root && d != "."; d = path.Dir(d) {
			if nodes[d] {
				return true
			}
		}
		return false
	}
	fresh, err := live.Own(rd.Fleet, rd.Owners, under)
	if err != nil {
		return nil, err
	}
	own := maps.Clone(e.own)
	maps.Copy(own, fresh)
	// A step changes a component's config, never the inventory (clusters,
	// targets, components) the waits join with: one fleet serves every
	// push's, not one each (2.8 MB at 1,000 x 100).
	return &Expectation{Head: head, Fleet: e.Fleet, own: own, Expected: live.ExpectOwned(e.Fleet, own), History: e.History.Advance(head, changes)}, nil
}

// ChangedIn picks the objects whose rendered file commit changed last.
func ChangedIn(commit string) func(live.AppState) bool {
	return func(s live.AppState) bool { return s.Commit == commit }
}
