package fleet

import (
	"fmt"
	"slices"
	"sync"

	"github.com/strata-fleet/strata/internal/values"
)

// The layering of one component for one target, in order:
//
//  1. values.yaml (over the item of the chart the component was discovered
//     from, if any), with the cluster type's <section>.default merged under
//     every item of each section it uses, and the global layer's
//     defaults.yaml under that;
//  2. for each node from the first dimension down to the target: the
//     global layer's override.yaml there (its <section>.default over every
//     item), then the component's level directory: override.yaml, then
//     each patch-*.yaml in file-name order (a patch's metadata: key is not
//     part of its content).
//
// A target's values are cluster: {<singular dimension>: <name>, ...} followed
// by every component's values in component-name order.

// baseCache holds a component's base values (step 1), computed once.
type baseCache struct {
	once  sync.Once
	value *values.Value
	err   error
}

// Base returns c's values.yaml with the cluster type's defaults applied.
func (ct *ClusterType) Base(c *Component) (*values.Value, error) {
	c.base.once.Do(func() { c.base.value, c.base.err = ct.base(c) })
	return c.base.value, c.base.err
}

func (ct *ClusterType) base(c *Component) (*values.Value, error) {
	defaults, err := ct.Defaults.Mapping("defaults.yaml")
	if err != nil {
		return nil, err
	}
	vals, err := c.ValuesMapping()
	if err != nil {
		return nil, err
	}
	if c.Chart != nil {
		vals = values.Merge(c.chartLayer(), vals)
	}
	var global *values.Value // the global layer's defaults.yaml
	if ct.Global != nil && ct.Global.Defaults != nil {
		if global, err = ct.Global.Defaults.Mapping("defaults.yaml"); err != nil {
			return nil, err
		}
		if err := checkGlobalShape(global, ct.Global.Defaults.Path); err != nil {
			return nil, err
		}
	}
	out := values.NewMap(vals.Pos)
	for i, section := range vals.Keys {
		items := vals.Vals[i]
		sd := defaults.Get(section)
		if gd := sectionDefault(global, section); gd != nil {
			// The global default under the cluster type's.
			if sd == nil {
				sd = values.NewMap(gd.Pos)
				sd.Set("default", gd)
			} else if td := sd.Get("default"); td != nil && sd.Kind == values.Map {
				sd = values.NewMap(sd.Pos)
				sd.Set("default", values.Merge(gd, td))
			}
		}
		if sd == nil {
			return nil, &values.Error{Pos: vals.KeyPosAt(i), Path: []string{section},
				Msg:  fmt.Sprintf("section %q has no defaults in %s", section, ct.Defaults.Path),
				Hint: fmt.Sprintf("add %s: {default: {...}} to %s (every section a component uses needs a default item)", section, ct.Defaults.Path)}
		}
		def := sd.Get("default")
		if def == nil || sd.Kind != values.Map {
			return nil, &values.Error{Pos: sd.Pos, Path: []string{section},
				Msg:  fmt.Sprintf("missing %s.default in %s", section, ct.Defaults.Path),
				Hint: fmt.Sprintf("each section of defaults.yaml holds a default item: %s: {default: {...}}", section)}
		}
		if items.Kind != values.Map {
			e := values.TypeError(items, []string{section}, values.Map)
			e.Msg = "expected a mapping of item name to item, got " + values.Article(items.Kind)
			return nil, e
		}
		merged := values.NewMap(items.Pos)
		for j, name := range items.Keys {
			item := items.Vals[j]
			if err := checkName(name); err != nil {
				return nil, &values.Error{Pos: items.KeyPosAt(j), Path: []string{section, name}, Msg: err.Error(),
					Hint: "an item's name names its resource and the file templates/<name>.yaml: use ASCII letters, digits, '-', '_' and '.', starting with a letter or a digit"}
			}
			if item.Kind == values.Null {
				merged.Set(name, item)
				continue
			}
			merged.Set(name, values.Merge(def, item))
		}
		out.Set(section, merged)
	}
	return out, nil
}

// resourceFields are the fields of an item whose kind the templates rely on,
// per section.
var resourceFields = map[string]map[string]values.Kind{
	"applications": {
		"source": values.Map, "sources": values.List, "destination": values.Map, "syncPolicy": values.Map,
		"ignoreDifferences": values.List, "info": values.List, "finalizers": values.List,
		"additionalAnnotations": values.Map, "additionalLabels": values.Map,
	},
	"applicationsets": {
		"generators": values.List, "template": values.Map, "syncPolicy": values.Map, "strategy": values.Map,
		"ignoreApplicationDifferences": values.List, "finalizers": values.List,
		"additionalAnnotations": values.Map, "additionalLabels": values.Map,
	},
	"appprojects": {
		"sourceRepos": values.List, "destinations": values.List, "finalizers": values.List,
		"additionalAnnotations": values.Map, "additionalLabels": values.Map,
	},
}

// Sources are the sources of an Application's spec in the values (an
// application item, or an ApplicationSet's template.spec): its source,
// then the items of its sources, each as written (no kind checked).
func Sources(spec *values.Value) []*values.Value {
	var srcs []*values.Value
	if s := spec.Get("source"); s != nil && s.Kind == values.Map {
		srcs = append(srcs, s)
	}
	if s := spec.Get("sources"); s != nil && s.Kind == values.List {
		srcs = append(srcs, s.Items...)
	}
	return srcs
}

// checkItems checks the shape of a component's merged values: each resource
// section a mapping of items, each item a mapping, and the fields the
// templates read of the right kind. Errors point at the layer that set the
// wrong value.
func checkItems(v *values.Value) error {
	for i, section := range v.Keys {
		fields := resourceFields[section]
		if fields == nil {
			continue
		}
		items := v.Vals[i]
		if items.Kind != values.Map {
			return values.TypeError(items, []string{section}, values.Map)
		}
		for j, name := range items.Keys {
			item := items.Vals[j]
			if item.Kind != values.Map {
				e := values.TypeError(item, []string{section, name}, values.Map)
				if item.Kind == values.Null {
					e.Hint = "an item is a mapping; to leave it out of a target, set enabled: false"
				}
				return e
			}
			for k, field := range item.Keys {
				fv := item.Vals[k]
				if want, ok := fields[field]; ok && fv.Kind != want && fv.Kind != values.Null {
					return values.TypeError(fv, []string{section, name, field}, want)
				}
			}
		}
	}
	return nil
}

// PatchContent returns a patch file's content without its metadata.
func PatchContent(f *File) (*values.Value, error) {
	v, err := f.Value()
	if err != nil {
		return nil, err
	}
	if v.Kind == values.Null {
		return nil, &values.Error{Pos: firstLine(f.Path), Msg: "patch file is empty", Hint: fileHints["patch"]}
	}
	if v.Kind != values.Map {
		e := values.TypeError(v, nil, values.Map)
		e.Hint = fileHints["patch"]
		return nil, e
	}
	if md := v.Get("metadata"); md != nil {
		v = v.Delete("metadata")
		if v.Len() == 0 {
			// A patch that changes nothing would still be promoted and
			// folded, and show as in effect where it does nothing.
			return nil, &values.Error{Pos: md.Pos, Path: []string{"metadata"},
				Msg: "patch holds only metadata: it changes nothing", Hint: fileHints["patch"]}
		}
	}
	return v, nil
}

// ComponentValues returns c's values for the target under node n.
//
// The result for a node is computed once per component and shared: the
// values at n are those at its parent with n's level directory applied, so
// nodes without a level directory of their own return their parent's very
// tree. Renders rely on that sharing (see internal/render/fast.go). Only a
// target's own values (at a leaf) are computed anew at each call: one
// target uses them, and keeping them would make memory grow with the
// number of targets rendered.
func (ct *ClusterType) ComponentValues(c *Component, n *Node) (*values.Value, error) {
	v, err := ct.valuesAt(c, n)
	if err != nil {
		return nil, err
	}
	if err := checkItems(v); err != nil {
		return nil, err
	}
	return v, nil
}

// nodeValues is the memo of one component's values at one node.
type nodeValues struct {
	once  sync.Once
	value *values.Value
	err   error
}

func (ct *ClusterType) valuesAt(c *Component, n *Node) (*values.Value, error) {
	if n == nil || n.Depth == 0 {
		return ct.Base(c)
	}
	if len(n.Children) == 0 {
		return ct.levelValues(c, n)
	}
	e, _ := c.atNode.LoadOrStore(n, &nodeValues{})
	nv := e.(*nodeValues)
	nv.once.Do(func() { nv.value, nv.err = ct.levelValues(c, n) })
	return nv.value, nv.err
}

// levelValues applies n's level directory, if any, to the values at n's
// parent.
func (ct *ClusterType) levelValues(c *Component, n *Node) (*values.Value, error) {
	v, err := ct.valuesAt(c, n.Parent)
	if err != nil {
		return nil, err
	}
	if ct.Global != nil {
		if g := ct.Global.Levels[n.ID()]; g != nil && g.Override != nil {
			if v, err = applyGlobal(v, g, len(n.Children) > 0); err != nil {
				return nil, err
			}
		}
	}
	if l := c.Levels[n.ID()]; l != nil {
		return applyLevel(v, l, len(n.Children) > 0)
	}
	return v, nil
}

// applyLevel merges a level's override, then its patches in order, onto v.
// Unless keep, the override's decoded value is not kept (see
// ComponentValues).
func applyLevel(v *values.Value, l *Level, keep bool) (*values.Value, error) {
	if l.Override != nil {
		mapping := l.Override.Mapping
		if !keep {
			mapping = l.Override.mappingUnkept
		}
		o, err := mapping("override.yaml")
		if err != nil {
			return nil, err
		}
		v = values.Merge(v, o)
	}
	for _, p := range l.Patches {
		pv, err := PatchContent(p)
		if err != nil {
			return nil, err
		}
		v = values.Merge(v, pv)
	}
	return v, nil
}

// ClusterBlock returns the cluster: mapping of the target under n.
func (f *Fleet) ClusterBlock(ct *ClusterType, n *Node) *values.Value {
	pos := values.Pos{File: ConfigPath}
	cl := values.NewMap(pos)
	path := n.Path()
	for i, d := range f.Config.Dimensions {
		cl.Set(d.Singular, values.NewString(path[i], pos))
	}
	if rev := f.Revision(ct.Name, n); rev != "" {
		cl.Set("revision", values.NewString(rev, pos))
	}
	if rb := f.revisionsBlock(ct.Name, n); rb != nil {
		cl.Set("revisions", rb)
	}
	if nv := nodeChainValues(n); nv != nil {
		cl = values.Merge(cl, nv)
	}
	if f.Config.Clusters.Facts {
		if cs := f.ClustersAt(ct.Name, n); len(cs) == 1 {
			cl = values.Merge(cl, cs[0].Facts())
		}
	}
	return cl
}

// Revision returns the Git revision the clusters of type ct under n run: the
// nearest pin, else the repository's revision. It is "" when the
// repository declares neither (a plain seed 003 repository).
func (f *Fleet) Revision(ct string, n *Node) string {
	for p := n; p != nil; p = p.Parent {
		if r := p.Revision.For(ct); r != "" {
			return r
		}
	}
	if f.Config.Repository != nil {
		return f.Config.Repository.Revision
	}
	return ""
}

// TargetValues returns the merged values of the target under n for cluster
// type ct. Two components that define the same item are an error.
func (f *Fleet) TargetValues(ct *ClusterType, n *Node) (*values.Value, error) {
	out := f.TargetBase(ct, n)
	owner := map[string]claim{} // item name -> where it is defined
	keys := map[string]claim{}  // key of the layout's values file -> where it is defined
	vsec := f.Config.Layout.ValuesSection()
	layers := make([]*values.Value, 0, len(ct.Components))
	for _, c := range ct.Components {
		cv, err := ct.ComponentValues(c, n)
		if err != nil {
			return nil, err
		}
		if err := claimItems(owner, c, cv, func(s string) bool { return resourceSections[s] }); err != nil {
			return nil, err
		}
		if err := claimItems(keys, c, cv, func(s string) bool { return s == vsec }); err != nil {
			return nil, err
		}
		if f.Config.Clusters.Facts {
			if i := slices.Index(cv.Keys, "clusters"); i >= 0 {
				return nil, &values.Error{Pos: cv.KeyPosAt(i), Path: []string{"clusters"},
					Msg:  fmt.Sprintf("component %q sets clusters:, which holds the target's clusters (clusters: {facts: true} in %s)", c.Name, ConfigPath),
					Hint: "rename the key, or turn facts off"}
			}
		}
		layers = append(layers, cv)
	}
	// In one pass: merged one by one, the items of all components were
	// copied again at each (quadratic in the components).
	return values.MergeAll(out, layers...), nil
}

// resourceSections are the sections whose items become resources.
var resourceSections = map[string]bool{"applications": true, "applicationsets": true, "appprojects": true}

// claim is the definition of a resource name: the component and where.
type claim struct {
	c       *Component
	section string
	pos     values.Pos
}

// claimItems claims the items of cv's sections that claimed says, refusing
// an item that another component (or another section) holds.
func claimItems(owner map[string]claim, c *Component, cv *values.Value, claimed func(section string) bool) error {
	for i, section := range cv.Keys {
		if !claimed(section) || cv.Vals[i].Kind != values.Map {
			continue
		}
		items := cv.Vals[i]
		for j, name := range items.Keys {
			pos := items.Vals[j].Pos
			if prev, dup := owner[name]; dup {
				msg := fmt.Sprintf("components %q and %q both define a resource named %q", prev.c.Name, c.Name, name)
				hint := "each resource name must be defined by one component of a cluster type: rename or remove one of them"
				if !resourceSections[section] { // the layout's values file
					msg = fmt.Sprintf("components %q and %q both define the key %q of the values file (layout.values)", prev.c.Name, c.Name, name)
					hint = "each key of a target's values file must be defined by one component of a cluster type"
				} else if prev.c == c {
					msg = fmt.Sprintf("component %q defines a resource named %q in both %s and %s", c.Name, name, prev.section, section)
					hint = "an Application and an ApplicationSet of one target need different names (each is the file templates/<name>.yaml)"
				}
				return &values.Error{Pos: pos, Path: []string{section, name}, Msg: msg, Also: []values.Pos{prev.pos}, Hint: hint}
			}
			owner[name] = claim{c: c, section: section, pos: pos}
		}
	}
	return nil
}
