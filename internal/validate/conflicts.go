package validate

import (
	"fmt"
	"path"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/values"
)

// conflicts reports the patches of one level directory that set the same
// field (fleet.Level.Conflicts): a warning per field, on the later patch,
// whose value wins, with the earlier patch as the source.
func conflicts(f *fleet.Fleet) ([]Finding, error) {
	cs, err := f.Conflicts()
	if err != nil {
		return nil, err
	}
	var out []Finding
	for _, c := range cs {
		later, err := leafPositions(c.Patch)
		if err != nil {
			return nil, err
		}
		earlier, err := leafPositions(c.Previous)
		if err != nil {
			return nil, err
		}
		for _, p := range c.Paths {
			fd := Finding{Severity: Warning, Check: CheckConflict, File: c.Patch.Path, Path: p,
				Message: fmt.Sprintf("%s sets it too, at the same level: %s wins because patches apply in file-name order; merge the two patches, or promote one before the other",
					path.Base(c.Previous.Path), path.Base(c.Patch.Path))}
			if pos, ok := later[p]; ok {
				fd.Line = pos.Line
			}
			if pos, ok := earlier[p]; ok {
				fd.Source = pos.String()
			} else {
				fd.Source = c.Previous.Path
			}
			out = append(out, fd)
		}
	}
	return out, nil
}

// leafPositions maps the dotted path of each leaf of a patch to where it is
// written.
func leafPositions(f *fleet.File) (map[string]values.Pos, error) {
	v, err := fleet.PatchContent(f)
	if err != nil {
		return nil, err
	}
	out := map[string]values.Pos{}
	for _, l := range v.Leaves() {
		out[values.PathString(l.Path)] = l.Value.Pos
	}
	return out, nil
}
