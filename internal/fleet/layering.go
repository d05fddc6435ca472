package fleet

import (
	"fmt"
	"sync"

	"github.com/strata-fleet/strata/internal/values"
)

// The layering of one component for one target, in order:
//
//  1. values.yaml, with the cluster type's <section>.default merged under
//     every item of each section it uses;
//  2. for each node from the first dimension down to the target whose level
//     directory exists: override.yaml, then each patch-*.yaml in file-name
//     order (a patch's metadata: key is not part of its content).
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
	vals, err := c.Values.Mapping("values.yaml")
	if err != nil {
		return nil, err
	}
	out := values.NewMap(vals.Pos)
	for i, section := range vals.Keys {
		items := vals.Vals[i]
		sd := defaults.Get(section)
		if sd == nil {
			return nil, &values.Error{Pos: items.Pos, Path: []string{section},
				Msg:  fmt.Sprintf("component uses section %q but %s has no defaults for it", section, ct.Defaults.Path),
				Hint: fmt.Sprintf("add %s: {default: {...}} to %s", section, ct.Defaults.Path)}
		}
		def := sd.Get("default")
		if def == nil || sd.Kind != values.Map {
			return nil, &values.Error{Pos: sd.Pos, Path: []string{section},
				Msg: fmt.Sprintf("missing %s.default in %s", section, ct.Defaults.Path), Hint: "each section of defaults.yaml holds a default item"}
		}
		if items.Kind != values.Map {
			return nil, &values.Error{Pos: items.Pos, Path: []string{section},
				Msg: fmt.Sprintf("expected a mapping of item name to item, got %s", items.Kind)}
		}
		merged := values.NewMap(items.Pos)
		for j, name := range items.Keys {
			item := items.Vals[j]
			if err := checkName(name); err != nil {
				return nil, values.Errorf(item.Pos, []string{section, name}, "%v", err)
			}
			if item.Kind != values.Map && item.Kind != values.Null {
				return nil, values.TypeError(item, []string{section, name}, values.Map)
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

// PatchContent returns a patch file's content without its metadata.
func PatchContent(f *File) (*values.Value, error) {
	v, err := f.Value()
	if err != nil {
		return nil, err
	}
	if v.Kind == values.Null {
		return nil, &values.Error{Pos: values.Pos{File: f.Path}, Msg: "patch file is empty", Hint: "a patch holds the values it changes; delete the file if it has none"}
	}
	if v.Kind != values.Map {
		return nil, values.TypeError(v, nil, values.Map)
	}
	if v.Get("metadata") != nil {
		v = v.Delete("metadata")
	}
	return v, nil
}

// ComponentValues returns c's values for the target under node n.
func (ct *ClusterType) ComponentValues(c *Component, n *Node) (*values.Value, error) {
	v, err := ct.Base(c)
	if err != nil {
		return nil, err
	}
	for _, l := range c.Layers(n) {
		if l.Override != nil {
			o, err := l.Override.Mapping("override.yaml")
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
	out := values.NewMap(values.Pos{File: ConfigPath})
	out.Set("cluster", f.ClusterBlock(ct, n))
	owner := map[string]*Component{} // item name -> component that defines it
	for _, c := range ct.Components {
		cv, err := ct.ComponentValues(c, n)
		if err != nil {
			return nil, err
		}
		if err := claimItems(owner, c, cv); err != nil {
			return nil, err
		}
		out = values.Merge(out, cv)
	}
	return out, nil
}

// resourceSections are the sections whose items become resources.
var resourceSections = map[string]bool{"applications": true, "applicationsets": true}

func claimItems(owner map[string]*Component, c *Component, cv *values.Value) error {
	for i, section := range cv.Keys {
		if !resourceSections[section] || cv.Vals[i].Kind != values.Map {
			continue
		}
		items := cv.Vals[i]
		for j, name := range items.Keys {
			if prev := owner[name]; prev != nil {
				msg := fmt.Sprintf("components %q and %q both define a resource named %q", prev.Name, c.Name, name)
				if prev == c {
					msg = fmt.Sprintf("component %q defines a resource named %q in two sections", c.Name, name)
				}
				return &values.Error{
					Pos:  items.Vals[j].Pos,
					Path: []string{section, name},
					Msg:  msg,
					Also: []values.Pos{{File: prev.Values.Path}},
					Hint: "each resource name must be defined by one component of a cluster type",
				}
			}
			owner[name] = c
		}
	}
	return nil
}
