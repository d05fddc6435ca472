package validate

import (
	"fmt"
	"io/fs"
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/values"
)

// charts reports what config.yaml's charts: leaves aside or loses: a
// directory of a charts directory that holds no Chart.yaml (found by no
// one, though it sits among charts), and a component discovered from a
// chart whose Application no longer points at the chart's directory at
// some target (its values replaced the path).
func charts(f *fleet.Fleet) ([]Finding, error) {
	var out []Finding
	seen := map[string]bool{}
	for i := range f.Config.Charts {
		d := &f.Config.Charts[i]
		for _, decl := range f.Config.ClusterTypes {
			dir := d.DirFor(decl.Name)
			if !d.Serves(decl.Name) || seen[dir] {
				continue
			}
			seen[dir] = true
			entries, err := fs.ReadDir(f.FS, dir)
			if err != nil {
				continue // the load names a missing directory
			}
			for _, e := range entries {
				p := dir + "/" + e.Name()
				if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
					continue
				}
				if _, err := fs.Stat(f.FS, p+"/Chart.yaml"); err == nil {
					continue
				}
				out = append(out, Finding{Severity: Warning, Check: CheckChart, File: p + "/",
					Source:  fmt.Sprintf("%s:%d:%d", fleet.ConfigPath, d.Pos.Line, d.Pos.Col),
					Message: fmt.Sprintf("%s holds no Chart.yaml: charts: %s makes no component of it; add a Chart.yaml, or move it out of %s", p, d.Dir, dir)})
			}
		}
	}
	for _, ct := range f.ClusterTypes {
		for _, c := range ct.Components {
			if c.Chart == nil {
				continue
			}
			for _, n := range ct.Targets {
				v, err := ct.ComponentValues(c, n)
				if err != nil {
					return nil, err
				}
				item := v.Lookup("applications", c.Name)
				if item == nil || item.Kind != values.Map || pointsAt(item, c.Chart.Path) {
					continue
				}
				out = append(out, Finding{Severity: Warning, Check: CheckChart, File: c.Values.Path,
					Path:    "applications." + c.Name,
					Message: fmt.Sprintf("%s was found from the chart %s, but its Application at %s/%s deploys no source with that path", c.Name, c.Chart.Path, ct.Name, n.ID())})
				break
			}
		}
	}
	return out, nil
}

// pointsAt reports whether an Application item has a source whose path is
// p.
func pointsAt(item *values.Value, p string) bool {
	if s := item.Lookup("source", "path"); s != nil && s.Text == p {
		return true
	}
	if ss := item.Get("sources"); ss != nil {
		for _, s := range ss.Items {
			if sp := s.Get("path"); sp != nil && sp.Text == p {
				return true
			}
		}
	}
	return false
}
