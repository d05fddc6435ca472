package promote

import (
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
)

// Reach returns the nodes under which the plan's file operations can change
// a target's rendered output, by ID ("" for the whole cluster type): the
// node of the level directory of every patch copy written or removed, and
// "" for a file directly under the component (values.yaml and history.yaml:
// a fold). The other targets render as before: of a component's files, a
// target's output depends only on values.yaml and those of the level
// directories on its path (its layers, as package render's fingerprint
// has it). ok is false when an operation touches a
// file outside the component's directory, which a plan never does; the
// caller then re-renders every target.
func (p *Plan) Reach() (nodes []string, ok bool) {
	dir := "config/" + p.ClusterType + "/" + p.Component + "/"
	nodes = []string{}
	for _, op := range p.Ops {
		rel, in := strings.CutPrefix(op.Path, dir)
		if !in || !fs.ValidPath(op.Path) {
			return nil, false
		}
		node := path.Dir(rel)
		if node == "." {
			return []string{""}, true
		}
		if !slices.Contains(nodes, node) {
			nodes = append(nodes, node)
		}
	}
	slices.Sort(nodes)
	return nodes, true
}

// RenderedDirs returns the directories of the rendered tree (where c's
// layout puts them, fleet.Config.NodeDirs) whose targets the plan can
// change (Reach), to re-render only those (output.Options.Only); nil, every
// target, when that cannot be told.
func (p *Plan) RenderedDirs(c *fleet.Config) []string {
	nodes, ok := p.Reach()
	if !ok {
		return nil
	}
	var dirs []string
	for _, n := range nodes {
		d, ok := c.NodeDirs(p.ClusterType, n)
		if !ok {
			return nil
		}
		dirs = append(dirs, d...)
	}
	return dirs
}
