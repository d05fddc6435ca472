package fleet

import (
	"io/fs"
	"slices"
)

// Scope is the part of a fleet LoadScope reads: by cluster type, the nodes
// (IDs, as "prod/eu"; "" for the whole cluster type) whose targets are
// wanted.
type Scope map[string][]string

// LoadScope reads only what the targets of s need: config.yaml, the
// inventory, and for each cluster type of s its defaults and components,
// with only the level directories on the way to its nodes and under them
// (a render restricted to those targets reads no more: package output).
// The other cluster types are absent, a cluster type's Targets are those
// under its nodes (an ID that names no node has none), and problems in the
// directories not read go unreported.
func LoadScope(fsys fs.FS, s Scope) (*Fleet, error) {
	return LoadScopeReusing(fsys, s, nil)
}

// LoadScopeReusing is LoadScope taking config.yaml as parsed, a Config that
// an earlier load of the same command returned (and nothing has modified),
// when config.yaml still holds the bytes it was parsed from: a promotion
// loads the fleet, then re-renders the targets it changed, and parsing
// config.yaml is most of loading a scope of a large fleet. parsed may be
// nil.
func LoadScopeReusing(fsys fs.FS, s Scope, parsed *Config) (*Fleet, error) {
	if s == nil {
		s = Scope{}
	}
	return load(fsys, selection{scope: s, parsed: parsed})
}

// enter prepares the loader for the cluster type called name under scope
// s, and reports whether any of its targets is wanted.
func (l *loader) enter(s Scope, name string) bool {
	ids, ok := s[name]
	l.under = nil
	if !ok {
		return false
	}
	var under []*Node
	for _, id := range ids {
		if id == "" {
			return true // every node
		}
		if n, err := l.cfg.findAt(id); err == nil {
			under = append(under, n)
		}
	}
	l.under = under
	return len(under) > 0
}

// wanted reports whether the level directory of node n is read: it is on
// the way to a node of the scope or under one (always, without a scope).
func (l *loader) wanted(n *Node) bool {
	return l.under == nil || slices.ContainsFunc(l.under, func(u *Node) bool { return u.covers(n) || n.covers(u) })
}

// TargetCount is the number of targets of every cluster type config.yaml
// declares, whether the load read it or not (LoadComponent, LoadScope).
func (f *Fleet) TargetCount() int {
	n := 0
	for _, d := range f.Config.ClusterTypes {
		n += len(targetsOf(f.Targets, d.At))
	}
	return n
}
