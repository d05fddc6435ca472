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
// (live.Expect) and the history of rendered/ there, for the waits.
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

// advance returns the expectation at head, made of commits on e's head:
// the targets under dirs (what the steps can change) read again, the rest
// and the history e's advanced by changes (BENCHMARKS.md, delivery).
func (e *Expectation) advance(fsys fs.FS, head string, dirs []string, changes []live.Changed) (*Expectation, error) {
	rd, err := render.Load(fsys)
	if err != nil {
		return nil, err
	}
	// A target is under a step's node when its directory or one above is.
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
	// A step never changes the inventory: one fleet serves every push.
	return &Expectation{Head: head, Fleet: e.Fleet, own: own, Expected: live.ExpectOwned(e.Fleet, own), History: e.History.Advance(head, changes)}, nil
}

// ChangedIn picks the objects whose rendered file commit changed last.
func ChangedIn(commit string) func(live.AppState) bool {
	return func(s live.AppState) bool { return s.Commit == commit }
}
