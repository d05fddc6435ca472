package explain

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/values"

	"github.com/strata-fleet/strata/internal/suggest"
)

// Result is the explanation of one field.
type Result struct {
	Target      string `json:"target"`
	ClusterType string `json:"clusterType"`
	Component   string `json:"component"`
	// Field is the field's full path in the component's values, dotted
	// (applications.cert-manager.source.targetRevision).
	Field string   `json:"field"`
	Path  []string `json:"path"`
	// Set is false when the field is absent from the merged values: a
	// step removed it (set a parent to null or to a scalar).
	Set bool `json:"set"`
	// Kind is the value's kind (string, mapping, list, ...).
	Kind string `json:"kind,omitempty"`
	// Value is the effective value as YAML; SetAt where it was set (for a
	// mapping, where the last file that touched it did).
	Value string `json:"value,omitempty"`
	SetAt string `json:"setAt,omitempty"`
	// Lines lay a mapping out with the position of every leaf.
	Lines []Line `json:"lines,omitempty"`
	// Chain are the files that set the field, in merge order.
	Chain []Step `json:"chain"`
}

// Step is one file of the chain.
type Step struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
	// Layer is "global-defaults" (config/global/defaults.yaml), "defaults",
	// "chart" (the item of the chart the component was discovered from,
	// set in config.yaml's charts:), "values", "global" (config/global/'s
	// override.yaml at Level), "override" or the patch's name.
	Layer string `json:"layer"`
	// Chart is the chart's directory, for the chart layer.
	Chart string `json:"chart,omitempty"`
	// Level is the level directory's node, for overrides and patches.
	Level string `json:"level,omitempty"`
	// At is the path the file sets, dotted: the field itself, the field
	// under <section>.default for defaults.yaml, or a parent it replaces.
	At string `json:"at"`
	// Parent is true when the file replaces a parent of the field with a
	// value that is not a mapping (removing the field).
	Parent bool `json:"parent,omitempty"`
	// Value is what the file sets there, as YAML.
	Value string `json:"value"`
	// Effective is true when some of it survives in the merged value.
	Effective bool `json:"effective"`
}

// Pos returns the step's position.
func (s Step) Pos() values.Pos { return values.Pos{File: s.File, Line: s.Line, Col: s.Col} }

// Explain explains field of component at the target under node n of cluster
// type ct. target names it in the result.
func Explain(ct *fleet.ClusterType, n *fleet.Node, target, component, field string) (*Result, error) {
	c := ct.Component(component)
	if c == nil {
		var names []string
		for _, c := range ct.Components {
			names = append(names, c.Name)
		}
		return nil, suggest.Unknownf("unknown component %q of cluster type %s (%s)", component, ct.Name, suggest.NearestList(component, names, suggest.Shown))
	}
	path, err := ParsePath(field)
	if err != nil {
		return nil, err
	}
	merged, err := ct.ComponentValues(c, n)
	if err != nil {
		return nil, err
	}
	if path, err = resolve(merged, path, component); err != nil {
		return nil, err
	}
	res := &Result{Target: target, ClusterType: ct.Name, Component: component, Field: values.PathString(path), Path: path}
	if res.Chain, err = chain(ct, c, n, path); err != nil {
		return nil, err
	}
	v := lookup(merged, path)
	if v == nil {
		if len(res.Chain) == 0 {
			return nil, notFound(merged, path, component, target)
		}
		// Removed: the last file that replaced a parent is what holds.
		for i := len(res.Chain) - 1; i >= 0; i-- {
			if res.Chain[i].Parent {
				res.Chain[i].Effective = true
				break
			}
		}
		return res, nil
	}
	res.Set = true
	res.Kind = v.Kind.String()
	res.Value = strings.TrimSuffix(string(values.Encode(v)), "\n")
	res.SetAt = v.Pos.String()
	if v.Kind == values.Map && len(v.Keys) > 0 {
		res.Lines = Annotate(v)
	}
	files := map[string]bool{}
	for _, l := range v.Leaves() {
		files[l.Value.Pos.File] = true
	}
	for i := range res.Chain {
		s := &res.Chain[i]
		s.Effective = !s.Parent && files[s.File]
	}
	return res, nil
}

// resolve completes a field path given relative to a component's item:
// source.targetRevision means applications.<item>.source.targetRevision
// for the item that has it (the item named like the component first), and
// cert-manager.source... means <section>.cert-manager.source...
func resolve(v *values.Value, path []string, component string) ([]string, error) {
	if v.Get(path[0]) != nil {
		return path, nil
	}
	var found [][]string
	for i, section := range v.Keys {
		items := v.Vals[i]
		if items.Kind != values.Map {
			continue
		}
		if items.Get(path[0]) != nil {
			return append([]string{section}, path...), nil
		}
		for _, item := range items.Keys {
			p := append([]string{section, item}, path...)
			if lookup(v, p) != nil {
				if item == component {
					return p, nil
				}
				found = append(found, p)
			}
		}
	}
	switch len(found) {
	case 0:
	case 1:
		return found[0], nil
	default:
		var names []string
		for _, p := range found {
			names = append(names, values.PathString(p))
		}
		return nil, suggest.Unknownf("%s is ambiguous in %s: it is %s; name the item (%s)",
			values.PathString(path), component, strings.Join(names, " and "), values.PathString(found[0][1:]))
	}
	// Not set anywhere in the merged values: resolve against the item
	// named like the component, or the only item, so that the chain can
	// tell who removed it.
	for i, section := range v.Keys {
		items := v.Vals[i]
		if items.Kind == values.Map && (items.Get(component) != nil || len(items.Keys) == 1) {
			item := component
			if items.Get(component) == nil {
				item = items.Keys[0]
			}
			return append([]string{section, item}, path...), nil
		}
	}
	return path, nil
}

// lookup follows path through mappings and lists, or returns nil.
func lookup(v *values.Value, path []string) *values.Value {
	for _, k := range path {
		switch {
		case v == nil:
			return nil
		case v.Kind == values.Map:
			v = v.Get(k)
		case v.Kind == values.List:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(v.Items) {
				return nil
			}
			v = v.Items[i]
		default:
			return nil
		}
	}
	return v
}

// notFound explains a field that is nowhere, naming the keys that exist
// where the path stops.
func notFound(v *values.Value, path []string, component, target string) error {
	at := v
	i := 0
	for ; i < len(path); i++ {
		next := lookup(at, path[i:i+1])
		if next == nil {
			break
		}
		at = next
	}
	where := "the values of " + component
	if i > 0 {
		where = values.PathString(path[:i])
	}
	msg := fmt.Sprintf("%s has no field %s at %s", component, values.PathString(path), target)
	switch at.Kind {
	case values.Map:
		if len(at.Keys) == 0 {
			return suggest.Unknownf("%s (%s is empty)", msg, where)
		}
		if len(at.Keys) <= suggest.Shown {
			return suggest.Unknownf("%s (%s has: %s)", msg, where, strings.Join(at.Keys, ", "))
		}
		near, _ := suggest.Nearest(path[min(i, len(path)-1)], at.Keys, suggest.Shown)
		return suggest.Unknownf("%s (%s has %d fields; nearest: %s)", msg, where, len(at.Keys), strings.Join(near, ", "))
	case values.List:
		return suggest.Unknownf("%s (%s is a list of %d items: use an index, 0 to %d)", msg, where, len(at.Items), len(at.Items)-1)
	}
	return suggest.Unknownf("%s (%s is %s)", msg, where, values.Article(at.Kind))
}
