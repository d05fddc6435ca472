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
	vals, err := c.ValuesMapping()
	if err != nil {
		return nil, err
	}
	var chart *values.Value // the item of the chart c was discovered from
	if c.Chart != nil {
		chart = values.NewMap(c.Chart.Item.Pos)
		items := values.NewMap(c.Chart.Item.Pos)
		items.Set(c.Name, c.Chart.Item)
		chart.Set("applications", items)
	}
	// defaults.yaml applies <section>.default under each item of a section
	// values.yaml (or the chart) uses (a null item stays null); the global
	// layer's defaults.yaml under it.
	if len(path) >= 2 {
		item := lookup(vals, path[:2])
		if item == nil && chart != nil {
			item = lookup(chart, path[:2])
		}
		if item != nil && item.Kind != values.Null {
			dpath := append([]string{path[0], "default"}, path[2:]...)
			if g := ct.Global; g != nil && g.Defaults != nil {
				gd, err := g.Defaults.Mapping("defaults.yaml")
				if err != nil {
					return nil, err
				}
				if s, ok := step(gd, dpath); ok {
					s.Layer = "global-defaults"
					out = append(out, s)
				}
			}
			defaults, err := ct.Defaults.Mapping("defaults.yaml")
			if err != nil {
				return nil, err
			}
			if s, ok := step(defaults, dpath); ok {
				s.Layer = "defaults"
				out = append(out, s)
			}
		}
	}
	if chart != nil {
		if s, ok := step(chart, path); ok {
			s.Layer, s.Chart = "chart", c.Chart.Path
			out = append(out, s)
		}
	}
	if s, ok := step(vals, path); ok {
		s.Layer = "values"
		out = append(out, s)
	}
	globals := map[*fleet.Node]*fleet.Level{}
	for _, l := range ct.Global.Layers(n) {
		globals[l.Node] = l
	}
	levels := map[*fleet.Node]*fleet.Level{}
	for _, l := range c.Layers(n) {
		levels[l.Node] = l
	}
	var nodes []*fleet.Node
	for p := n; p != nil && p.Depth > 0; p = p.Parent {
		nodes = append([]*fleet.Node{p}, nodes...)
	}
	for _, node := range nodes {
		if g := globals[node]; g != nil && g.Override != nil && len(path) >= 2 {
			o, err := g.Override.Mapping("override.yaml")
			if err != nil {
				return nil, err
			}
			if s, ok := step(o, append([]string{path[0], "default"}, path[2:]...)); ok {
				s.Layer, s.Level = "global", node.ID()
				out = append(out, s)
			}
		}
		l := levels[node]
		if l == nil {
			continue
		}
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
