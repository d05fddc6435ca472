package status

import (
	"slices"
	"strings"

	"github.com/strata-fleet/strata/internal/diff"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/rollout/inflight"
	"github.com/strata-fleet/strata/internal/suggest"
)

// Filter narrows a status to what its reader asked for (status
// --component, --target, --patch); the zero Filter keeps everything.
type Filter struct {
	// Components keeps only these components: their columns and patches.
	Components []string
	// Target keeps only the rows whose target name, or a parent of it,
	// matches this glob (as diff --target: "production", "*/us-east1").
	Target string
	// Patch keeps only the patches of this name ("patch-001" or "001")
	// and the columns of the components that have one.
	Patch string
}

// Filter returns the part of s that f keeps. A component, target pattern or
// patch that matches nothing is an error naming the nearest names.
func (s *Status) Filter(f Filter) (*Status, error) {
	if len(f.Components) == 0 && f.Target == "" && f.Patch == "" {
		return s, nil
	}
	if err := fleet.TargetPattern(f.Target).Check(); err != nil {
		return nil, err
	}
	patch := f.Patch
	if patch != "" && !strings.HasPrefix(patch, "patch-") {
		patch = "patch-" + patch
	}
	var comps, targets, patches []string
	matched := map[string]bool{}
	out := &Status{Dimensions: s.Dimensions, Live: s.Live, Rollouts: s.Rollouts, noHistory: s.noHistory, patch: patch}
	for _, ct := range s.ClusterTypes {
		keep := map[string]bool{}
		for _, c := range ct.Components {
			comps = append(comps, c)
			keep[c] = len(f.Components) == 0 || slices.Contains(f.Components, c)
			matched[c] = matched[c] || keep[c]
		}
		if patch != "" {
			with := map[string]bool{}
			for _, p := range ct.Patches {
				patches = append(patches, p.Name)
				if p.Name == patch && keep[p.Component] {
					with[p.Component] = true
				}
			}
			for _, fo := range s.Folded {
				if parts := strings.SplitN(fo.Patch, "/", 3); parts[0] == ct.Name && parts[2] == patch && keep[parts[1]] {
					with[parts[1]] = true
					out.Folded = append(out.Folded, fo)
					matched["patch:"+patch] = true
				}
			}
			keep = with
		}
		n := ClusterType{Name: ct.Name, Targets: []Target{}, Patches: []Patch{}}
		for _, c := range ct.Components {
			if keep[c] {
				n.Components = append(n.Components, c)
			}
		}
		for _, t := range ct.Targets {
			name := ct.Name + "/" + strings.Join(t.Path, "/")
			targets = append(targets, strings.Join(t.Path, "/"), name)
			if !fleet.TargetPattern(f.Target).Matches(ct.Name, strings.Join(t.Path, "/")) {
				continue
			}
			matched["target:"+f.Target] = true
			row := t
			row.Cells = nil
			for _, c := range t.Cells {
				if keep[c.Component] {
					row.Cells = append(row.Cells, c)
				}
			}
			n.Targets = append(n.Targets, row)
		}
		for _, p := range ct.Patches {
			if keep[p.Component] && (patch == "" || p.Name == patch) {
				n.Patches = append(n.Patches, p)
				matched["patch:"+patch] = true
			}
		}
		if len(n.Components) > 0 && len(n.Targets) > 0 {
			out.ClusterTypes = append(out.ClusterTypes, n)
		}
	}
	for _, c := range f.Components {
		if !matched[c] {
			return nil, suggest.UnknownFlag("--component", "component", c, comps)
		}
	}
	if f.Target != "" && !matched["target:"+f.Target] {
		return nil, diff.NoMatch(f.Target, targets, "")
	}
	if patch != "" && !matched["patch:"+patch] {
		return nil, suggest.UnknownFlag("--patch", "patch", patch, patches)
	}
	if out.ClusterTypes == nil {
		out.ClusterTypes = []ClusterType{}
	}
	out.Rollouts = slices.DeleteFunc(append([]inflight.Flight{}, s.Rollouts...), func(fl inflight.Flight) bool { return !out.shows(fl) })
	return out, nil
}
