package validate

import (
	"fmt"
	"path"
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/values"
)

// shadows reports the fields of patches that a file of a more specific level
// sets again (fleet.Component.Shadows), so that the patch is in effect at a
// target by its file but its value never reaches it: a warning per patch,
// field and winning file, on the patch's line, naming the targets.
func shadows(f *fleet.Fleet) ([]Finding, error) {
	type key struct{ patch, field, by string }
	var order []key
	targets := map[key][]string{}
	lines := map[key]int{}
	for _, ct := range f.ClusterTypes {
		for _, c := range ct.Components {
			for _, n := range ct.Targets {
				ss, err := c.Shadows(n)
				if err != nil {
					return nil, err
				}
				for _, s := range ss {
					k := key{s.Patch.Path, values.PathString(s.Field), s.At.String()}
					if _, seen := targets[k]; !seen {
						order = append(order, k)
						pos, err := leafPositions(s.Patch)
						if err != nil {
							return nil, err
						}
						lines[k] = pos[k.field].Line
					}
					targets[k] = append(targets[k], n.ID())
				}
			}
		}
	}
	out := make([]Finding, 0, len(order))
	for _, k := range order {
		ts := targets[k]
		where := strings.Join(ts[:min(len(ts), 3)], ", ")
		if len(ts) > 3 {
			where += fmt.Sprintf(" and %d more targets", len(ts)-3)
		}
		out = append(out, Finding{Severity: Warning, Check: CheckShadow, File: k.patch, Line: lines[k], Path: k.field, Source: k.by,
			Message: fmt.Sprintf("%s never reaches %s: %s sets it again, and a more specific file wins over the patch; drop the field from one of them",
				strings.TrimSuffix(path.Base(k.patch), ".yaml"), where, k.by)})
	}
	return out, nil
}
