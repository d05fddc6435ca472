package livecache

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/strata-fleet/strata/internal/live"
)

// The watcher's indexed store selects what a pass over every Application
// selects: after any sequence of added, changed (owner and path too) and
// deleted Applications, scope.instance gives the Applications whose name
// or owner the scope names or whose path is one of its roots', in the
// order of a list followed by the watched changes; and a change that
// changes what a scope selects wakes it.
func TestHeldSelectsAsAScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(prefix string, n int) string { return fmt.Sprintf("%s%d", prefix, rng.IntN(n)) }
	app := func() live.App {
		a := live.App{Name: pick("app-", 40), Path: pick("rendered/c", 6), Health: pick("h", 3)}
		if rng.IntN(3) == 0 {
			a.Owner = pick("app-", 40)
		}
		return a
	}
	in := &live.Instance{Cluster: "hub"}
	for range 20 {
		a := app()
		if !slices.ContainsFunc(in.Applications, func(b live.App) bool { return b.Name == a.Name }) {
			in.Applications = append(in.Applications, a)
		}
	}
	// scan is the instance as a plain list changed the way Argo CD's
	// watch tells (what the Cache held before the index).
	scan := slices.Clone(in.Applications)
	h := newHeld(in)
	sc := &Scope{names: map[string]bool{"app-1": true, "app-2": true, "app-3": true, "app-30": true}, paths: map[string]bool{"rendered/c1": true}}
	keys := map[string]bool{}
	for n := range sc.names {
		keys["name/"+n] = true
	}
	for p := range sc.paths {
		keys["path/"+p] = true
	}
	in1 := func(a live.App) bool {
		return sc.names[a.Name] || a.Owner != "" && sc.names[a.Owner] || sc.paths[a.Path]
	}
	for step := range 2000 {
		ev := live.Event{Type: []watch.EventType{watch.Added, watch.Modified, watch.Modified, watch.Deleted}[rng.IntN(4)], App: app()}
		i := slices.IndexFunc(scan, func(a live.App) bool { return a.Name == ev.App.Name })
		var before *live.App
		if i >= 0 {
			before = &scan[i]
		}
		wake := false
		for _, a := range []*live.App{before, &ev.App} {
			if a == nil {
				continue
			}
			for _, k := range appKeys(a) {
				wake = wake || keys[k]
			}
		}
		selected := sc.instance(h).Applications
		switch {
		case ev.Type == watch.Deleted && i >= 0:
			scan = slices.Delete(slices.Clone(scan), i, i+1)
		case ev.Type == watch.Deleted:
		case i >= 0:
			scan = slices.Clone(scan)
			scan[i] = ev.App
		default:
			scan = append(slices.Clone(scan), ev.App)
		}
		var was *live.App
		if before != nil {
			w := *before
			was = &w
		}
		if old := h.apply(ev); !cmp.Equal(old, was) {
			t.Fatalf("step %d: apply returned %+v, want %+v", step, old, was)
		}
		var want []live.App
		for _, a := range scan {
			if in1(a) {
				want = append(want, a)
			}
		}
		got := sc.instance(h).Applications
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("step %d (%s %s): the scope's Applications (-scan +index):\n%s", step, ev.Type, ev.App.Name, d)
		}
		if !wake && !cmp.Equal(selected, got) {
			t.Fatalf("step %d: %s of %s changed the scope's Applications but woke no wait", step, ev.Type, ev.App.Name)
		}
	}
}
