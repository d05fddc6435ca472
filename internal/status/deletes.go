package status

import (
	"slices"
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/values"
)

// Deletion is an Application or ApplicationSet that a patch switches off
// (enabled: false) where it runs: when the change reaches a target, Argo CD
// deletes it there. This is status's notion of a destructive change.
// Status shows the fleet as it is in the working tree, not a change against
// a revision (strata diff names the deletions of a change: removed
// components and resources); what is pending in that model is the patches,
// so status names what each one deletes where it is and what its next
// promotion deletes.
type Deletion struct {
	Resource string `json:"resource"`
	Kind     string `json:"kind"` // Application or ApplicationSet
	// Workloads is true when, at one of the Next targets at least, the
	// resource carries Argo CD's resources finalizer: the workloads it
	// manages are deleted with it.
	Workloads bool `json:"workloads"`
	// Generated is true for an ApplicationSet whose generated Applications
	// are deleted with it (its syncPolicy does not preserve them).
	Generated bool `json:"generated"`
	// Deleted counts the targets where the patch is in effect and the
	// resource is off; Next those where the resource runs and the next
	// promotion takes the patch.
	Deleted int `json:"deleted"`
	Next    int `json:"next"`
}

// resourcesFinalizer is Argo CD's finalizer that deletes an Application's
// resources with it (package diff reads it in rendered text).
const resourcesFinalizer = "resources-finalizer.argocd.argoproj.io"

// deletions lists what the patch p (its latest copy, file) switches off,
// where it has, and where its next promotion would.
func deletions(f *fleet.Fleet, ct *fleet.ClusterType, c *fleet.Component, file *fleet.File, p *Patch, m *ClusterType) ([]Deletion, error) {
	content, err := fleet.PatchContent(file)
	if err != nil {
		return nil, nil // the patch's own problem: promote and validate say it
	}
	col := slices.Index(m.Components, c.Name)
	var out []Deletion
	for _, sec := range sections {
		items := content.Get(sec.name)
		if items == nil || items.Kind != values.Map {
			continue
		}
		for i, name := range items.Keys {
			if e := items.Vals[i].Get("enabled"); e == nil || e.Text != "false" {
				continue
			}
			d := Deletion{Resource: name, Kind: sec.kind}
			for _, row := range m.Targets {
				cell := row.Cells[col]
				switch {
				case slices.Contains(cell.Patches, p.Name):
					if slices.Contains(cell.Disabled, name) {
						d.Deleted++
					}
				case p.Next != "" && under(row.Path, p.Next) && runs(cell, name):
					d.Next++
					if err := d.cascade(f, ct, c, sec.name, name, row.Path); err != nil {
						return nil, err
					}
				}
			}
			if d.Deleted > 0 || d.Next > 0 {
				out = append(out, d)
			}
		}
	}
	return out, nil
}

// cascade notes what goes with the resource at the target at path.
func (d *Deletion) cascade(f *fleet.Fleet, ct *fleet.ClusterType, c *fleet.Component, section, name string, path []string) error {
	n := f.Config.Find(path)
	v, err := ct.ComponentValues(c, n)
	if err != nil {
		return err
	}
	item := v.Get(section).Get(name)
	if fs := item.Get("finalizers"); fs != nil && fs.Kind == values.List {
		for _, f := range fs.Items {
			if f.Kind == values.String && strings.HasPrefix(f.Text, resourcesFinalizer) {
				d.Workloads = true
			}
		}
	}
	if section == "applicationsets" {
		keep := item.Lookup("syncPolicy", "preserveResourcesOnDeletion")
		d.Generated = d.Generated || keep == nil || keep.Kind != values.Bool || keep.Text != "true"
	}
	return nil
}

// runs reports whether the cell has the resource switched on.
func runs(cell Cell, name string) bool {
	return slices.ContainsFunc(cell.Versions, func(v Version) bool { return v.Resource == name })
}

// under reports whether the target at path is node id or under it.
func under(path []string, id string) bool {
	p := strings.Join(path, "/")
	return p == id || strings.HasPrefix(p, id+"/")
}

// What says what the deletion takes, in strata diff's words: "web
// (Application) and, with the resources finalizer, its workloads".
func (d Deletion) What() string {
	s := d.Resource + " (" + d.Kind + ")"
	switch {
	case d.Workloads && d.Generated:
		s += ", its generated Applications and, with the resources finalizer, their workloads"
	case d.Workloads:
		s += " and, with the resources finalizer, its workloads"
	case d.Generated:
		s += " and its generated Applications"
	}
	return s
}

// DeletionLines says, one line each, what the patch's deletions are: what
// its next promotion deletes, and what it has deleted.
func (p Patch) DeletionLines() []string {
	var out []string
	for _, d := range p.Deletes {
		if d.Next > 0 {
			out = append(out, "the next promotion (to "+p.Next+") deletes "+d.What()+" at "+plural(d.Next, "target", "targets"))
		}
		if d.Deleted > 0 {
			out = append(out, "deleted "+d.Resource+" ("+d.Kind+") at "+plural(d.Deleted, "target", "targets")+" it reached")
		}
	}
	return out
}
