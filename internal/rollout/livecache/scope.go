package livecache

import (
	"slices"

	"k8s.io/apimachinery/pkg/watch"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/live"
)

// Scope is what one wait joins: the expected objects its pick selects,
// their clusters and, of what the Argo CDs hold, those objects, the
// Applications their ApplicationSets made and the clusters' roots; not
// the whole fleet at each change (BENCHMARKS.md, delivery).
type Scope struct {
	f        *fleet.Fleet
	expected []live.Expected
	// names are the expected objects', paths the root Applications'.
	names, paths map[string]bool
	// keys are the names and paths as appKeys makes them: a change to an
	// Application with none of them leaves the join as it was.
	keys []string
}

// appKeys are the keys under which a change to a wakes a wait (see
// scope.instance): its name, its owner's, its source path.
func appKeys(a *live.App) []string {
	keys := []string{"name/" + a.Name, "path/" + a.Path}
	if a.Owner != "" {
		keys = append(keys, "name/"+a.Owner)
	}
	return keys
}

// NewScope is the scope of a wait of the rollout of ct's component comp:
// the objects of expected (the whole fleet's) that pick selects.
func NewScope(f *fleet.Fleet, expected []live.Expected, history *live.History, pick func(live.AppState) bool, ct, comp string) *Scope {
	sc := &Scope{names: map[string]bool{}, paths: map[string]bool{}}
	clusters := map[string]bool{}
	for _, e := range expected {
		if e.ClusterType != ct || e.Component != comp {
			continue
		}
		// What the pick sees of it, as live.Join makes it.
		commit, _ := history.LastChange(e.File)
		if !pick(live.AppState{Expected: e, Commit: commit}) {
			continue
		}
		sc.expected = append(sc.expected, e)
		sc.names[e.Name] = true
		clusters[e.Cluster] = true
	}
	var kept []*fleet.Cluster
	for _, c := range f.Clusters {
		if clusters[c.Name] {
			kept = append(kept, c)
			sc.paths[live.RootPath(f.Config, c)] = true
		}
	}
	sc.f = f.WithClusters(kept)
	for n := range sc.names {
		sc.keys = append(sc.keys, "name/"+n)
	}
	for p := range sc.paths {
		sc.keys = append(sc.keys, "path/"+p)
	}
	return sc
}

// instance is a copy of what in holds of the scope's objects: those named
// in it, made by an ApplicationSet named in it, or deploying one of its
// root paths, in in's order.
func (sc *Scope) instance(in *held) *live.Instance {
	out := *in.Instance
	out.Applications, out.ApplicationSets = nil, nil
	var at []int
	seen := map[string]bool{}
	add := func(name string) {
		if i, ok := in.at[name]; ok && !seen[name] {
			seen[name] = true
			at = append(at, i)
		}
	}
	for n := range sc.names {
		add(n)
		for c := range in.owned[n] {
			add(c)
		}
	}
	for p := range sc.paths {
		for n := range in.pathed[p] {
			add(n)
		}
	}
	slices.Sort(at)
	for _, i := range at {
		out.Applications = append(out.Applications, in.Applications[i])
	}
	for _, s := range in.ApplicationSets {
		if sc.names[s.Name] {
			out.ApplicationSets = append(out.ApplicationSets, s)
		}
	}
	return &out
}

// held is what the Cache holds of one Argo CD: the instance read, each
// change applied in place, indexed by name, owner and source path, so
// that neither a change nor a selection passes over all of them.
type held struct {
	*live.Instance
	// at is the position of each Application in Applications, by name;
	// owned and pathed the names of those each ApplicationSet made and
	// of those deploying each source path.
	at            map[string]int
	owned, pathed map[string]map[string]bool
}

func newHeld(in *live.Instance) *held {
	h := &held{Instance: in}
	h.index()
	return h
}

// reset makes what h holds what a new read found.
func (h *held) reset(fresh *live.Instance) {
	*h.Instance = *fresh
	h.index()
}

func (h *held) index() {
	h.at = make(map[string]int, len(h.Applications))
	h.owned, h.pathed = map[string]map[string]bool{}, map[string]map[string]bool{}
	for i := range h.Applications {
		h.at[h.Applications[i].Name] = i
		h.file(&h.Applications[i], true)
	}
}

// file adds a to (or, with in false, removes it from) owned and pathed.
func (h *held) file(a *live.App, in bool) {
	if a.Owner != "" {
		setIn(h.owned, a.Owner, a.Name, in)
	}
	setIn(h.pathed, a.Path, a.Name, in)
}

// setIn adds name to m[key], or removes it.
func setIn(m map[string]map[string]bool, key, name string, in bool) {
	if in {
		if m[key] == nil {
			m[key] = map[string]bool{}
		}
		m[key][name] = true
		return
	}
	if delete(m[key], name); len(m[key]) == 0 {
		delete(m, key)
	}
}

// apply records a watched change in place and returns the Application it
// replaced or deleted (nil for a new one).
func (h *held) apply(ev live.Event) *live.App {
	i, ok := h.at[ev.App.Name]
	if !ok {
		if ev.Type == watch.Deleted {
			return nil
		}
		h.at[ev.App.Name] = len(h.Applications)
		h.Applications = append(h.Applications, ev.App)
		h.file(&ev.App, true)
		return nil
	}
	old := h.Applications[i]
	h.file(&old, false)
	if ev.Type == watch.Deleted {
		// Rare (a pruned Application): the positions after it move.
		h.Applications = slices.Delete(h.Applications, i, i+1)
		h.index()
		return &old
	}
	h.Applications[i] = ev.App
	h.file(&ev.App, true)
	return &old
}
