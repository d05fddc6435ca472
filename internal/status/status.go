package status

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/promote"
	"github.com/strata-fleet/strata/internal/rollout/inflight"
	"github.com/strata-fleet/strata/internal/values"
)

// Status is the rollout matrix of a fleet and the state of its patches.
type Status struct {
	// Dimensions are the dimensions' names, outermost first.
	Dimensions   []string      `json:"dimensions"`
	ClusterTypes []ClusterType `json:"clusterTypes"`
	// Live is the live state (WithLive), when asked for.
	Live *Live `json:"live,omitempty"`
	// Rollouts are where the rollouts of the patches in flight stand
	// (ReadRollouts; empty until read).
	Rollouts []inflight.Flight `json:"rollouts"`
	// Folded are the patches of a status --patch that were folded into
	// values.yaml (ReadFolded).
	Folded []Folded `json:"folded,omitempty"`
	// noHistory: the rollouts were read without a Git history.
	noHistory bool
	// patch is the patch a Filter kept ("" for all).
	patch string
}

// ClusterType is the matrix of one cluster type.
type ClusterType struct {
	Name string `json:"name"`
	// Components are the matrix's columns, in name order.
	Components []string `json:"components"`
	// Targets are its rows, in sequence (rollout) order.
	Targets []Target `json:"targets"`
	// Patches are the patches being rolled out, by component then name.
	Patches []Patch `json:"patches"`
}

// Target is a row of the matrix.
type Target struct {
	// Name is the target as commands take it.
	Name string   `json:"name"`
	Path []string `json:"path"`
	// Gates are the nodes on the target's path marked promotion: manual.
	Gates []string `json:"gates,omitempty"`
	// Cells are in the order of the cluster type's Components.
	Cells []Cell `json:"cells"`
}

// Cell is one component at one target.
type Cell struct {
	Component string `json:"component"`
	// Versions are the sources of the component's enabled resources.
	Versions []Version `json:"versions"`
	// Disabled names the component's resources switched off here
	// (enabled: false).
	Disabled []string `json:"disabled,omitempty"`
	// Patches are the names of the patch files in effect, outermost level
	// first ("patch-001").
	Patches []string `json:"patches,omitempty"`
	// Shadowed are the fields of those patches that a file applied after
	// them sets again here: their values never reach the target.
	Shadowed []Shadowed `json:"shadowed,omitempty"`
	// Live is what Argo CD says of the cell (WithLive): nil when no
	// cluster runs it or live state was not asked for.
	Live *live.Cell `json:"live,omitempty"`
}

// Shadowed is a field of a patch in effect at a target that a more
// specific file (an override, or a later patch) sets again there.
type Shadowed struct {
	Patch string `json:"patch"` // patch-001
	// Field is the key path from the top of the component's values.
	Field string `json:"field"`
	// By is the file:line:col that sets it and wins.
	By string `json:"by"`
}

// IsShadowed reports whether some field of the patch called name is
// shadowed in the cell.
func (c Cell) IsShadowed(name string) bool {
	for _, s := range c.Shadowed {
		if s.Patch == name {
			return true
		}
	}
	return false
}

// Version is one source of a resource and the revision it deploys.
type Version struct {
	Resource string `json:"resource"`
	Kind     string `json:"kind"` // Application or ApplicationSet
	RepoURL  string `json:"repoURL,omitempty"`
	Chart    string `json:"chart,omitempty"`
	Path     string `json:"path,omitempty"`
	// Revision is the source's targetRevision; "HEAD" (Argo CD's default)
	// for a Git source that sets none, "" for a chart that sets none.
	Revision string `json:"revision"`
	// SetAt is the file:line:col that set the revision.
	SetAt string `json:"setAt,omitempty"`
	// RevisionName is the named revision (config.yaml's revisions:) the
	// targetRevision follows, .Values.cluster.revisions.<name>; "" for
	// none.
	RevisionName string `json:"revisionName,omitempty"`
	// Secret is the key of the cluster Secret ("annotations.git_revision")
	// that the ApplicationSet controller reads the revision from at run
	// time; Revision is then what strata's bootstrap writes there (the
	// branch, for git_revision), "" for a key it does not write.
	Secret string `json:"secret,omitempty"`
}

// Patch is a patch file name of a component and its rollout.
type Patch struct {
	Component   string `json:"component"`
	Name        string `json:"name"` // patch-001
	Description string `json:"description,omitempty"`
	// Locations are the level directories that hold the patch, in rollout
	// order, and Files their patch files.
	Locations []string `json:"locations"`
	Files     []string `json:"files"`
	// Latest is the last location in rollout order.
	Latest string `json:"latest"`
	// Targets is how many of the cluster type's Total targets have it.
	Targets int `json:"targets"`
	Total   int `json:"total"`
	// Shadowed is how many of those targets do not get some field of the
	// patch, which a more specific file sets again (see Cell.Shadowed).
	Shadowed int `json:"shadowed,omitempty"`
	// Next is the node the next promotion copies the patch to; empty at the
	// end of the sequence. Integrates says that the next promotion folds it
	// into values.yaml instead.
	Next       string `json:"next,omitempty"`
	Integrates bool   `json:"integrates,omitempty"`
	// NextGates are the manual gates the next promotion enters (it needs
	// --approve); Gates all the manual gates the patch has yet to pass, in
	// rollout order.
	NextGates []string `json:"nextGates,omitempty"`
	Gates     []string `json:"gates,omitempty"`
	// Problem says why the patch cannot be promoted as it stands (a gap, a
	// conflict), when it cannot.
	Problem string `json:"problem,omitempty"`
	// Deletes are the Applications and ApplicationSets the patch switches
	// off where they run: the destructive part of the change.
	Deletes []Deletion `json:"deletes,omitempty"`
	// Wave, where config.yaml's rollout waves: apply at the patch's latest
	// location, is the wave it is in (the last it entered); NextWave is
	// the wave of the next promotion, its nodes included.
	Wave     *promote.Wave `json:"wave,omitempty"`
	NextWave *promote.Wave `json:"nextWave,omitempty"`
	// Unhealthy, with status --live, are the clusters its rollout let
	// fail within a step's maxUnhealthy: (see ReadUnhealthy).
	Unhealthy []string `json:"unhealthy,omitempty"`
	latest    *fleet.File
}

// Compute returns the status of fleet f.
func Compute(f *fleet.Fleet) (*Status, error) {
	s := &Status{Dimensions: []string{}, Rollouts: []inflight.Flight{}}
	for _, d := range f.Config.Dimensions {
		s.Dimensions = append(s.Dimensions, d.Name)
	}
	s.ClusterTypes = []ClusterType{}
	for _, ct := range f.ClusterTypes {
		cts, err := clusterType(f, ct)
		if err != nil {
			return nil, err
		}
		s.ClusterTypes = append(s.ClusterTypes, *cts)
	}
	return s, nil
}

func clusterType(f *fleet.Fleet, ct *fleet.ClusterType) (*ClusterType, error) {
	out := &ClusterType{Name: ct.Name, Components: []string{}, Targets: []Target{}, Patches: []Patch{}}
	for _, c := range ct.Components {
		out.Components = append(out.Components, c.Name)
	}
	rows, err := targetRows(f, ct)
	if err != nil {
		return nil, err
	}
	out.Targets = rows
	for _, c := range ct.Components {
		ps, err := patches(f, ct, c, out)
		if err != nil {
			return nil, err
		}
		out.Patches = append(out.Patches, ps...)
	}
	return out, nil
}

// targetRows returns the matrix's rows, computed in parallel (each worker
// with its own resolver), in target order.
func targetRows(f *fleet.Fleet, ct *fleet.ClusterType) ([]Target, error) {
	rows := make([]Target, len(ct.Targets))
	errs := make([]error, len(ct.Targets))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(ct.Targets)) {
		wg.Go(func() {
			r := &resolver{limits: f.Config.Render.Limits, branch: f.Config.Branch()}
			for i := int(next.Add(1) - 1); i < len(rows); i = int(next.Add(1) - 1) {
				rows[i], errs[i] = targetRow(f, ct, ct.Targets[i], r)
				r.flushIfFull()
			}
			r.flush()
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// targetRow returns the row of target n; its templated strings are filled
// in when r resolves them.
func targetRow(f *fleet.Fleet, ct *fleet.ClusterType, n *fleet.Node, r *resolver) (Target, error) {
	row := Target{Name: TargetName(f, ct, n), Path: n.Path(), Cells: []Cell{}}
	for p := n; p != nil && p.Depth > 0; p = p.Parent {
		if p.Gate == fleet.GateManual {
			row.Gates = append([]string{p.ID()}, row.Gates...)
		}
	}
	cluster := f.ClusterBlock(ct, n)
	for _, c := range ct.Components {
		v, err := ct.ComponentValues(c, n)
		if err != nil {
			return row, fmt.Errorf("%s at %s: %w", c.Name, row.Name, err)
		}
		cell, err := cellOf(c, n, v, cluster, r)
		if err != nil {
			return row, fmt.Errorf("%s at %s: %w", c.Name, row.Name, err)
		}
		row.Cells = append(row.Cells, cell)
	}
	return row, nil
}

// cellOf returns the cell of component c at n; its templated strings are
// filled in when r resolves them.
func cellOf(c *fleet.Component, n *fleet.Node, v, cluster *values.Value, r *resolver) (Cell, error) {
	cell := &Cell{Component: c.Name, Versions: []Version{}}
	versions(v, cluster, cell, r)
	for _, l := range c.Layers(n) {
		for _, p := range l.Patches {
			if name := patchName(p.Path); !slices.Contains(cell.Patches, name) {
				cell.Patches = append(cell.Patches, name)
			}
		}
	}
	shadows, err := c.Shadows(n)
	if err != nil {
		return *cell, err
	}
	for _, sh := range shadows {
		cell.Shadowed = append(cell.Shadowed, Shadowed{Patch: sh.PatchName(), Field: values.PathString(sh.Field), By: sh.At.String()})
	}
	return *cell, nil
}

// patchName is a patch file's name without directory and extension.
func patchName(p string) string {
	return strings.TrimSuffix(p[strings.LastIndexByte(p, '/')+1:], ".yaml")
}

// patches lists the patches of component c and their rollout.
func patches(f *fleet.Fleet, ct *fleet.ClusterType, c *fleet.Component, m *ClusterType) ([]Patch, error) {
	var walk []*fleet.Node
	f.Config.Root.Walk(func(n *fleet.Node) { walk = append(walk, n) })
	byName := map[string]*Patch{}
	var names []string
	for _, n := range walk {
		l := c.Levels[n.ID()]
		if l == nil {
			continue
		}
		for _, file := range l.Patches {
			name := patchName(file.Path)
			p := byName[name]
			if p == nil {
				p = &Patch{Component: c.Name, Name: name, Description: description(file)}
				byName[name] = p
				names = append(names, name)
			}
			p.Locations = append(p.Locations, n.ID())
			p.Files = append(p.Files, file.Path)
			p.Latest, p.latest = n.ID(), file
		}
	}
	slices.Sort(names)
	col := slices.Index(m.Components, c.Name)
	var out []Patch
	for _, name := range names {
		p := byName[name]
		p.Total = len(m.Targets)
		for _, row := range m.Targets {
			if slices.Contains(row.Cells[col].Patches, name) {
				p.Targets++
			}
			if row.Cells[col].IsShadowed(name) {
				p.Shadowed++
			}
		}
		p.Gates = gatesAhead(walk, p.Locations)
		plan, err := promote.Prepare(f, promote.Options{ClusterType: ct.Name, Component: c.Name, Patch: name, Approve: true})
		switch {
		case errors.Is(err, promote.ErrNothingToDo):
		case err != nil:
			p.Problem = firstLine(err.Error())
		default:
			p.Next = plan.Target
			p.NextGates = plan.Gates
			p.NextWave = plan.Wave
			p.Integrates = plan.Target == "" && plan.Integrated != ""
		}
		if p.Wave, err = promote.WaveOf(f, promote.Options{ClusterType: ct.Name, Component: c.Name, Patch: name}); err != nil {
			return nil, err
		}
		if p.Deletes, err = deletions(f, ct, c, p.latest, p, m); err != nil {
			return nil, err
		}
		out = append(out, *p)
	}
	return out, nil
}

// gatesAhead lists the manual nodes, in rollout order, that no location of
// the patch is at, under or above: the gates it has yet to pass.
func gatesAhead(walk []*fleet.Node, locations []string) []string {
	var out []string
	for _, n := range walk {
		if n.Gate != fleet.GateManual {
			continue
		}
		id, entered := n.ID(), false
		for _, l := range locations {
			if l == id || strings.HasPrefix(l, id+"/") || strings.HasPrefix(id, l+"/") {
				entered = true
				break
			}
		}
		if !entered {
			out = append(out, id)
		}
	}
	return out
}

// description is a patch's metadata.description, when it has one.
func description(file *fleet.File) string {
	v, err := file.Value()
	if err != nil {
		return ""
	}
	if d := v.Lookup("metadata", "description"); d != nil && d.Kind == values.String {
		return d.Text
	}
	return ""
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
