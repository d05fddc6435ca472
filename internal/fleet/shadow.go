package fleet

import (
	"path"
	"slices"
	"strings"

	"github.com/strata-fleet/strata/internal/values"
)

// Shadow is a field that a patch sets and that a file of a more specific
// level sets again at the same target (its override, or a patch of its
// own), so that the patch's value never reaches the target although its file
// is in effect there. (Patches of one level that set the same field are
// Conflicts.)
type Shadow struct {
	// Patch is the shadowed patch file, By the file that wins.
	Patch *File
	By    *File
	// Field is the key path from the top of the component's values
	// (applications.cert-manager.source.targetRevision).
	Field []string
	// At is where By sets the field (or replaces a mapping above it).
	At values.Pos
}

// PatchName is the patch's file name without its extension ("patch-001").
func (s Shadow) PatchName() string { return strings.TrimSuffix(path.Base(s.Patch.Path), ".yaml") }

// Shadows lists, in layer order, the fields of c's patches that a file of a
// more specific level of the target under n sets again: one Shadow per patch
// leaf, naming the last file that sets it (the one whose value the target
// gets).
func (c *Component) Shadows(n *Node) ([]Shadow, error) {
	type layerFile struct {
		file    *File
		content *values.Value
		depth   int
		patch   bool
	}
	layers := c.Layers(n)
	if !slices.ContainsFunc(layers, func(l *Level) bool { return len(l.Patches) > 0 }) {
		return nil, nil
	}
	var files []layerFile
	for _, l := range layers {
		for _, f := range l.Files() {
			var v *values.Value
			var err error
			if f == l.Override {
				v, err = f.Value()
			} else {
				v, err = PatchContent(f)
			}
			if err != nil {
				return nil, err
			}
			files = append(files, layerFile{f, v, l.Node.Depth, f != l.Override})
		}
	}
	var out []Shadow
	for i, p := range files {
		if !p.patch {
			continue
		}
		for _, leaf := range p.content.Leaves() {
			if leaf.Value.Kind == values.Map {
				continue // an empty mapping changes nothing
			}
			var s *Shadow
			for _, later := range files[i+1:] {
				if later.depth == p.depth {
					continue
				}
				if at, ok := sets(later.content, leaf.Path); ok {
					s = &Shadow{Patch: p.file, By: later.file, Field: leaf.Path, At: at}
				}
			}
			if s != nil {
				out = append(out, *s)
			}
		}
	}
	return out, nil
}

// sets reports whether merging v replaces the value at field: v sets it, or
// sets something other than a mapping above it.
func sets(v *values.Value, field []string) (values.Pos, bool) {
	for _, k := range field {
		if v == nil || v.Kind != values.Map {
			return values.Pos{}, false
		}
		if v = v.Get(k); v == nil {
			return values.Pos{}, false
		}
		if v.Kind != values.Map {
			return v.Pos, true
		}
	}
	return v.Pos, true
}
