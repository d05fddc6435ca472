package web

import (
	"context"
	"net/http"
	"path"
	"slices"
	"strings"

	"github.com/strata-fleet/strata/internal/diff"
	"github.com/strata-fleet/strata/internal/explain"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/hint"
	"github.com/strata-fleet/strata/internal/render"
	"github.com/strata-fleet/strata/internal/status"
	"github.com/strata-fleet/strata/internal/suggest"
)

type diffPage struct {
	Base, Target string
	Result       *diff.Result
}

// targetPage is a target's detail.
type targetPage struct {
	Name        string
	ClusterType string
	Crumbs      []crumb
	Cluster     []explain.Line
	Components  []componentDetail
	Resources   []resource
	RenderErr   string
}

type crumb struct {
	Name string
	Gate bool
}

type componentDetail struct {
	Name   string
	Cell   status.Cell
	Text   string
	Layers []layerFile
	Lines  []explain.Line
	Err    string
}

type layerFile struct {
	Kind, Level, Path string
}

type resource struct {
	// File is the resource's file relative to the target's directory
	// (templates/<name>.yaml; a plain manifest's name), or the values
	// file's path in the repository.
	File string
	YAML string
}

func (s *Server) target(w http.ResponseWriter, r *http.Request) {
	snap := s.current()
	if s.failed(w, snap, "") {
		return
	}
	name := r.PathValue("name")
	ct, n, err := status.FindTarget(snap.fleet, name)
	if err != nil {
		s.notFound(w, err.Error())
		return
	}
	name = status.TargetName(snap.fleet, ct, n)
	p := targetPage{Name: name, ClusterType: ct.Name}
	for q := n; q != nil && q.Depth > 0; q = q.Parent {
		p.Crumbs = append([]crumb{{Name: q.Name, Gate: q.Gate == fleet.GateManual}}, p.Crumbs...)
	}
	p.Cluster = explain.Annotate(snap.fleet.ClusterBlock(ct, n))
	row := s.row(snap, ct.Name, name)
	for i, c := range ct.Components {
		d := componentDetail{Name: c.Name}
		if row != nil {
			d.Cell = row.Cells[i]
			d.Text = status.CellText(d.Cell)
		}
		if ct.Global != nil && ct.Global.Defaults != nil {
			d.Layers = append(d.Layers, layerFile{Kind: "global-defaults", Path: ct.Global.Defaults.Path})
		}
		d.Layers = append(d.Layers, layerFile{Kind: "defaults", Path: ct.Defaults.Path})
		if c.Chart != nil {
			d.Layers = append(d.Layers, layerFile{Kind: "chart", Path: c.Chart.Path})
		}
		if c.Chart == nil || len(c.Values.Data) > 0 {
			d.Layers = append(d.Layers, layerFile{Kind: "values", Path: c.Values.Path})
		}
		for _, l := range ct.Global.Layers(n) {
			if l.Override != nil {
				d.Layers = append(d.Layers, layerFile{Kind: "global", Level: l.Node.ID(), Path: l.Override.Path})
			}
		}
		for _, l := range c.Layers(n) {
			for _, f := range l.Files() {
				kind := "override"
				if f != l.Override {
					kind = strings.TrimSuffix(f.Path[strings.LastIndexByte(f.Path, '/')+1:], ".yaml")
				}
				d.Layers = append(d.Layers, layerFile{Kind: kind, Level: l.Node.ID(), Path: f.Path})
			}
		}
		v, err := ct.ComponentValues(c, n)
		if err != nil {
			d.Err = err.Error()
		} else {
			d.Lines = explain.Annotate(v)
		}
		p.Components = append(p.Components, d)
	}
	rr := &render.Renderer{Fleet: snap.fleet, Chart: snap.chart}
	out, err := rr.Render(render.Target{ClusterType: ct, Node: n})
	if err != nil {
		p.RenderErr = err.Error()
	} else {
		for _, f := range out.Files {
			dir := out.Target.Dir() + "/templates/"
			switch {
			case ct.Layout.Plain(): // plain manifests: each file as it is
				p.Resources = append(p.Resources, resource{File: path.Base(f.Path), YAML: string(f.Data)})
			case strings.HasPrefix(f.Path, dir):
				p.Resources = append(p.Resources, resource{File: strings.TrimPrefix(f.Path, out.Target.Dir()+"/"), YAML: string(f.Data)})
			}
		}
		for _, f := range out.Beside { // the values file (layout.values), beside the directory
			p.Resources = append(p.Resources, resource{File: f.Path, YAML: string(f.Data)})
		}
	}
	s.render(w, http.StatusOK, "target.html", &page{Title: name, Data: p})
}

func (s *Server) row(snap *snapshot, ct, name string) *status.Target {
	for i := range snap.status.ClusterTypes {
		c := &snap.status.ClusterTypes[i]
		if c.Name != ct {
			continue
		}
		for j := range c.Targets {
			if c.Targets[j].Name == name {
				return &c.Targets[j]
			}
		}
	}
	return nil
}

// patchPage is a patch's rollout along the sequence.
type patchPage struct {
	ClusterType string
	Patch       status.Patch
	// Promote is the command that promotes the patch a step.
	Promote string
	Nodes   []nodeRow
	Files   []patchFile
}

// nodeRow is a node of the sequence and where the patch stands there.
type nodeRow struct {
	ID, Name string
	Depth    int
	Gate     bool
	// Target is the target's name when the node is one.
	Target string
	// Here: a copy of the patch is at this node; Has/Of: how many of the
	// targets under the node have it.
	Here    bool
	Has, Of int
	Next    bool
}

type patchFile struct {
	Path, Content string
}

func (s *Server) patch(w http.ResponseWriter, r *http.Request) {
	snap := s.current()
	if s.failed(w, snap, "") {
		return
	}
	ctName, comp, name := r.PathValue("ct"), r.PathValue("component"), r.PathValue("patch")
	var cts *status.ClusterType
	for i := range snap.status.ClusterTypes {
		if snap.status.ClusterTypes[i].Name == ctName {
			cts = &snap.status.ClusterTypes[i]
		}
	}
	if cts == nil {
		var names []string
		for _, ct := range snap.status.ClusterTypes {
			names = append(names, ct.Name)
		}
		s.notFound(w, suggest.Unknown("cluster type", ctName, names).Error())
		return
	}
	var patch *status.Patch
	var patches []string
	for i := range cts.Patches {
		if cts.Patches[i].Component == comp {
			patches = append(patches, cts.Patches[i].Name)
			if cts.Patches[i].Name == name {
				patch = &cts.Patches[i]
			}
		}
	}
	if patch == nil {
		if fo := s.folded(r.Context(), snap, ctName, comp, name); fo != nil {
			s.render(w, http.StatusOK, "folded.html", &page{Title: comp + "/" + name,
				Data: foldedPage{ClusterType: ctName, Component: comp, Name: name, Folded: *fo}})
			return
		}
		s.notFound(w, suggest.Unknownf("unknown patch %q of %s/%s: no such patch is rolling out, it may have been folded into values.yaml (%s)",
			name, ctName, comp, suggest.NearestList(name, patches, suggest.Shown)).Error())
		return
	}
	col := slices.Index(cts.Components, comp)
	has := map[string]bool{} // target path -> has the patch
	for _, t := range cts.Targets {
		has[strings.Join(t.Path, "/")] = slices.Contains(t.Cells[col].Patches, name)
	}
	p := patchPage{ClusterType: ctName, Patch: *patch, Promote: s.command(promoteCommand(ctName, patch)).String()}
	f := snap.fleet
	ct := f.ClusterType(ctName)
	f.Config.Root.Walk(func(n *fleet.Node) {
		if ct != nil && !ct.ExistsAt(n) {
			return // no target of ct here (config.yaml's at:)
		}
		row := nodeRow{ID: n.ID(), Name: n.Name, Depth: n.Depth, Gate: n.Gate == fleet.GateManual,
			Here: slices.Contains(patch.Locations, n.ID()), Next: patch.Next == n.ID()}
		for _, l := range n.Leaves() {
			if l.Depth == len(f.Config.Dimensions) && (ct == nil || ct.ExistsAt(l)) {
				row.Of++
				if has[l.ID()] {
					row.Has++
				}
			}
		}
		if len(n.Children) == 0 && ct != nil {
			row.Target = status.TargetName(f, ct, n)
		}
		p.Nodes = append(p.Nodes, row)
	})
	for _, path := range patch.Files {
		data, err := readFile(f, path)
		if err != nil {
			data = "(" + err.Error() + ")"
		}
		p.Files = append(p.Files, patchFile{Path: path, Content: data})
	}
	s.render(w, http.StatusOK, "patch.html", &page{Title: comp + "/" + name, Data: p})
}

// promoteCommand is the command that promotes patch a step (entering
// its next gates needs --approve).
func promoteCommand(ct string, patch *status.Patch) hint.Command {
	cmd := hint.Strata("promote", ct, patch.Component, patch.Name)
	if len(patch.NextGates) > 0 {
		cmd = append(cmd, "--approve")
	}
	return cmd
}

// command is cmd as a page names it for the user to run: against the
// repository the user gave serve (Options.Root).
func (s *Server) command(cmd hint.Command) hint.Command {
	if s.opts.Root == "" {
		return cmd
	}
	return cmd.WithRoot(s.opts.Root)
}

// foldedPage is the page of a patch folded into values.yaml.
type foldedPage struct {
	ClusterType, Component, Name string
	Folded                       status.Folded
}

// folded is the fold of ct/comp/name into values.yaml, as status --patch
// tells it (status.ReadFolded: history.yaml and Git), or nil: no such
// fold, or it could not be read (logged; the page then says not found).
func (s *Server) folded(ctx context.Context, snap *snapshot, ct, comp, name string) *status.Folded {
	var st status.Status // not snap.status: ReadFolded sets its Folded
	if err := status.ReadFolded(ctx, &st, snap.fleet, git.Exec{Dir: s.opts.Dir}, name); err != nil {
		s.opts.Logger.Warn("reading the fold of a patch", "patch", ct+"/"+comp+"/"+name, "err", err)
		return nil
	}
	for _, fo := range st.Folded {
		if fo.Patch == ct+"/"+comp+"/"+name {
			return &fo
		}
	}
	return nil
}

func readFile(f *fleet.Fleet, path string) (string, error) {
	for _, ct := range f.ClusterTypes {
		for _, c := range ct.Components {
			for _, l := range c.Levels {
				for _, file := range l.Patches {
					if file.Path == path {
						return string(file.Data), nil
					}
				}
			}
		}
	}
	return "", errString("not found")
}
