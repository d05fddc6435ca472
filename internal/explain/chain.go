package explain

import (
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/values"
)

// chain lists the files that set path for the target under n, in merge
// order.
func chain(ct *fleet.ClusterType, c *fleet.Component, n *fleet.Node, path []string) ([]Step, error) {
	var out []Step
	vals, err := c.Values.Mapping("values.yaml")
	if err != nil {
		return nil, err
	}
	// defaults.yaml applies <section>.default under each item of a section
	// values.yaml uses (a null item stays null).
	if len(path) >= 2 {
		if item := lookup(vals, path[:2]); item != nil && item.Kind != values.Null {
			defaults, err := ct.Defaults.Mapping("defaults.yaml")
			if err != nil {
				return nil, err
			}
			dpath := append([]string{path[0], "default"}, path[2:]...)
			if s, ok := step(defaults, dpath); ok {
				s.Layer = "defaults"
				out = append(out, s)
			}
		}
	}
	if s, ok := step(vals, path); ok {
		s.Layer = "values"
		out = append(out, s)
	}
	for _, l := range c.Layers(n) {
		if l.Override != nil {
			o, err := l.Override.Mapping("override.yaml")
			if err != nil {
				return nil, err
			}
			if s, ok := step(o, path); ok {
				s.Layer, s.Level = "override", l.Node.ID()
				out = append(out, s)
			}
		}
		for _, p := range l.Patches {
			pv, err := fleet.PatchContent(p)
			if err != nil {
				return nil, err
			}
			if s, ok := step(pv, path); ok {
				s.Layer, s.Level = strings.TrimSuffix(p.Path[strings.LastIndexByte(p.Path, '/')+1:], ".yaml"), l.Node.ID()
				out = append(out, s)
			}
		}
	}
	return out, nil
}

// step tells what the document doc of one file does to path: sets it (or
// part of it), replaces a parent with something that is not a mapping, or
// nothing.
func step(doc *values.Value, path []string) (Step, bool) {
	v := doc
	pos := doc.Pos
	for i, k := range path {
		switch v.Kind {
		case values.Map:
			j := index(v, k)
			if j < 0 {
				return Step{}, false
			}
			pos = v.KeyPosAt(j)
			v = v.Vals[j]
		case values.List:
			// A list replaces the whole list: the file sets the field
			// when the list has the item.
			item := lookup(v, []string{k})
			if item == nil {
				return Step{}, false
			}
			v, pos = item, item.Pos
		default:
			return parentStep(path[:i], v, pos), true
		}
	}
	return Step{File: pos.File, Line: pos.Line, Col: pos.Col, At: values.PathString(path), Value: yamlOf(v)}, true
}

func parentStep(path []string, v *values.Value, pos values.Pos) Step {
	return Step{File: pos.File, Line: pos.Line, Col: pos.Col, At: values.PathString(path), Parent: true, Value: yamlOf(v)}
}

func index(m *values.Value, key string) int {
	for i, k := range m.Keys {
		if k == key {
			return i
		}
	}
	return -1
}

func yamlOf(v *values.Value) string {
	return strings.TrimSuffix(string(values.Encode(v)), "\n")
}
