package bootstrap

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/render"
	"github.com/strata-fleet/strata/internal/suggest"
)

// Many is the bootstrap of several clusters at once: after a change of the
// root objects themselves (pins never change them), every affected cluster
// in one command.
type Many struct {
	Bundles []*Bundle `json:"bundles"`
	// Skipped are the selected clusters that get no bundle, and why.
	Skipped []Skip `json:"skipped,omitempty"`
}

// Skip is a cluster left out of a Many.
type Skip struct {
	Cluster string `json:"cluster"`
	Reason  string `json:"reason"`
}

// Selector matches clusters by the labels of their identity secret: the
// cluster type (cluster_type), the node of every dimension, the hub
// (strata.io/hub) and the cluster's own labels. "" matches every cluster.
func Selector(f *fleet.Fleet, expr string) (func(*fleet.Cluster) bool, error) {
	sel, err := labels.Parse(expr)
	if err != nil {
		return nil, fmt.Errorf("--selector %s: %w", expr, err)
	}
	b := &builder{f: f}
	return func(c *fleet.Cluster) bool {
		set := labels.Set{}
		for k, v := range b.identityLabels(c) {
			set[k] = fmt.Sprint(v)
		}
		return sel.Matches(set)
	}, nil
}

// NoneSelected is the error of a selector that matches no cluster of f,
// for its first term that no cluster meets: an unknown label key, or a
// value that no cluster has, with the nearest keys or values that exist;
// else it says that no cluster meets every term together.
func NoneSelected(f *fleet.Fleet, expr string) error {
	sel, err := labels.Parse(expr)
	if err != nil {
		return fmt.Errorf("--selector %s: %w", expr, err)
	}
	if len(f.Clusters) == 0 {
		return suggest.Unknownf("--selector %s matches no cluster: the inventory is empty (add one file per cluster to %s/)", expr, fleet.ClustersDir)
	}
	b := &builder{f: f}
	var sets []labels.Set
	seen := map[string][]string{} // key -> its values, in inventory order
	var keys []string
	for _, c := range f.Clusters {
		set := labels.Set{}
		for k, v := range b.identityLabels(c) {
			set[k] = fmt.Sprint(v)
		}
		for _, k := range slices.Sorted(maps.Keys(set)) {
			if _, ok := seen[k]; !ok {
				keys = append(keys, k)
			}
			if !slices.Contains(seen[k], set[k]) {
				seen[k] = append(seen[k], set[k])
			}
		}
		sets = append(sets, set)
	}
	reqs, _ := sel.Requirements()
	for _, r := range reqs {
		if slices.ContainsFunc(sets, func(s labels.Set) bool { return r.Matches(s) }) {
			continue
		}
		if _, ok := seen[r.Key()]; !ok && r.Operator() != selection.DoesNotExist {
			return suggest.UnknownFlag("--selector "+expr, "label", r.Key(), keys)
		}
		if v := r.Values().UnsortedList(); len(v) > 0 && (r.Operator() == selection.Equals || r.Operator() == selection.DoubleEquals || r.Operator() == selection.In) {
			slices.Sort(v)
			return suggest.UnknownFlag("--selector "+expr, r.Key(), v[0], seen[r.Key()])
		}
		return suggest.Unknownf("--selector %s: no cluster of the inventory has %s", expr, r.String())
	}
	return suggest.Unknownf("--selector %s matches no cluster of the inventory: each of its terms matches some, none matches them all", expr)
}

// BuildMany builds the bundle of every cluster of the inventory that match
// selects. A spoke registered with credentials given at bootstrap time is
// skipped (its registration does not change with the root objects; its
// root ApplicationSet is in its hub's bundle), unless opts has credentials.
func BuildMany(f *fleet.Fleet, chart *render.Chart, match func(*fleet.Cluster) bool, opts Options) (*Many, error) {
	m := &Many{Bundles: []*Bundle{}}
	for _, c := range f.Clusters {
		if !match(c) {
			continue
		}
		if c.Hub != "" && c.ExternalSecret == nil && opts.Credentials == nil {
			m.Skipped = append(m.Skipped, Skip{Cluster: c.Name, Reason: fmt.Sprintf("registered on %s with credentials given at bootstrap (its root ApplicationSet is in %s's bootstrap)", c.Hub, c.Hub)})
			continue
		}
		b, err := Build(f, chart, c.Name, opts)
		if err != nil {
			return nil, err
		}
		m.Bundles = append(m.Bundles, b)
	}
	return m, nil
}

// ChangedSince keeps the bundles of m that differ from the bundle of the
// same cluster in base (the fleet at an earlier revision), or that base
// does not have: the clusters to bootstrap again.
func (m *Many) ChangedSince(base *Many) *Many {
	was := map[string]*Bundle{}
	for _, b := range base.Bundles {
		was[b.Cluster] = b
	}
	out := &Many{Bundles: []*Bundle{}, Skipped: m.Skipped}
	for _, b := range m.Bundles {
		if !sameObjects(b, was[b.Cluster]) {
			out.Bundles = append(out.Bundles, b)
		}
	}
	return out
}

// sameObjects reports whether two bundles hold the same objects, sent to
// the same cluster.
func sameObjects(a, b *Bundle) bool {
	if a == nil || b == nil || a.ApplyTo != b.ApplyTo || len(a.Objects) != len(b.Objects) {
		return false
	}
	for i := range a.Objects {
		x, err1 := json.Marshal(a.Objects[i].Object)
		y, err2 := json.Marshal(b.Objects[i].Object)
		if err1 != nil || err2 != nil || !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}
