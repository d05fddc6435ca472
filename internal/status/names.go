package status

import (
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/suggest"
)

// TargetName is how commands name a target: its path in the sequence
// ("production/prod-sector-1/us-east1"), prefixed with the cluster type when
// the fleet has more than one ("management-cluster/production/...").
func TargetName(f *fleet.Fleet, ct *fleet.ClusterType, n *fleet.Node) string {
	if len(f.ClusterTypes) == 1 {
		return n.ID()
	}
	return ct.Name + "/" + n.ID()
}

// FindTarget resolves a target name: a full-depth path of the sequence,
// prefixed with its cluster type (always accepted; required when the fleet
// has several).
func FindTarget(f *fleet.Fleet, name string) (*fleet.ClusterType, *fleet.Node, error) {
	name = strings.Trim(name, "/")
	first, rest, _ := strings.Cut(name, "/")
	if ct := f.ClusterType(first); ct != nil {
		if n := findLeaf(ct.Targets, rest); n != nil {
			return ct, n, nil
		}
		return nil, nil, unknownTarget(f, name)
	}
	var types []string
	var found *fleet.ClusterType
	var node *fleet.Node
	for _, ct := range f.ClusterTypes {
		if n := findLeaf(ct.Targets, name); n != nil {
			types = append(types, ct.Name+"/"+name)
			found, node = ct, n
		}
	}
	switch {
	case len(types) == 1: // the one cluster type that exists there
		return found, node, nil
	case len(types) > 1:
		return nil, nil, suggest.Unknownf("target %q exists for several cluster types: name one of %s", name, strings.Join(types, ", "))
	}
	return nil, nil, unknownTarget(f, name)
}

// FindComponentTarget resolves a target name as FindTarget does, for a
// command about one component: a name without its cluster type, in a fleet
// with several, is the target of the only cluster type that has the
// component.
func FindComponentTarget(f *fleet.Fleet, name, component string) (*fleet.ClusterType, *fleet.Node, error) {
	ct, n, err := FindTarget(f, name)
	if err == nil || len(f.ClusterTypes) < 2 {
		return ct, n, err
	}
	var with []*fleet.ClusterType
	for _, c := range f.ClusterTypes {
		if c.Component(component) != nil {
			with = append(with, c)
		}
	}
	if len(with) != 1 {
		return nil, nil, err
	}
	if n = findLeaf(with[0].Targets, strings.Trim(name, "/")); n == nil {
		return nil, nil, err
	}
	return with[0], n, nil
}

func findLeaf(targets []*fleet.Node, id string) *fleet.Node {
	for _, n := range targets {
		if n.ID() == id {
			return n
		}
	}
	return nil
}

// unknownTarget names the targets nearest to name: with their cluster type
// when name has one more segment than the sequence has dimensions, else
// without (the names FindTarget takes without one).
func unknownTarget(f *fleet.Fleet, name string) error {
	withType := len(f.ClusterTypes) > 1 && strings.Count(name, "/") >= len(f.Config.Dimensions)
	var all []string
	for _, ct := range f.ClusterTypes {
		for _, n := range ct.Targets {
			if withType {
				all = append(all, TargetName(f, ct, n))
			} else {
				all = append(all, n.ID())
			}
		}
	}
	if len(all) == 0 {
		return suggest.Unknownf("unknown target %q: the fleet has no targets", name)
	}
	return suggest.Unknownf("unknown target %q: a target is a full-depth path of the sequence (%s)", name, suggest.NearestList(name, all, suggest.Shown))
}
