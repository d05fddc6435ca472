package status

import (
	_ "embed"
	"html/template"
	"io"
	"strings"
)

//go:embed status.html.tmpl
var htmlTemplates string

// Linker gives the addresses the HTML links targets and patches to; ""
// means no link. The self-contained page links nothing; the web UI links
// its own pages.
type Linker interface {
	TargetURL(target string) string
	PatchURL(clusterType, component, patch string) string
}

type noLinks struct{}

func (noLinks) TargetURL(string) string                { return "" }
func (noLinks) PatchURL(string, string, string) string { return "" }

// View is the status arranged for the HTML templates.
type View struct {
	Status       *Status
	ClusterTypes []CTView
	Link         Linker
	// Live is the live state, when the status has one.
	Live *LiveView
}

// CTView is one cluster type's matrix as HTML rows.
type CTView struct {
	*ClusterType
	Dimensions []string // column headings
	Rows       []RowView
}

// RowView is one target's row: the dimension cells that start on it (with
// how many rows they span) and its component cells.
type RowView struct {
	Target Target
	Groups []GroupView
	Cells  []CellView
	// First is true on the first row of a first-level node.
	First bool
}

// GroupView is a node's cell in the dimension columns.
type GroupView struct {
	Name, ID string
	Rowspan  int
	Gate     bool
	// Target is the target's name when the node is the target itself (the
	// last dimension).
	Target string
}

// CellView is one matrix cell.
type CellView struct {
	Cell
	Text  string // the revisions
	Title string // provenance, one source per line
	// Keys are the cell's patches as "<component>/<patch>".
	Keys string
}

// NewView arranges s for the HTML templates; l may be nil.
func NewView(s *Status, l Linker) *View {
	n := 0
	for _, ct := range s.ClusterTypes {
		n = max(n, len(ct.Targets))
	}
	return NewPageView(s, l, 0, n)
}

// NewPageView arranges s for the HTML templates with the rows from to
// to-1 of each matrix only (a page of a large fleet's): the rest (the
// patches, the live state) is whole.
func NewPageView(s *Status, l Linker, from, to int) *View {
	if l == nil {
		l = noLinks{}
	}
	v := &View{Status: s, Link: l, Live: newLiveView(s)}
	for i := range s.ClusterTypes {
		ct := &s.ClusterTypes[i]
		cv := CTView{ClusterType: ct}
		for _, d := range s.Dimensions {
			cv.Dimensions = append(cv.Dimensions, singular(d))
		}
		targets := ct.Targets[min(from, len(ct.Targets)):min(to, len(ct.Targets))]
		for r, t := range targets {
			row := RowView{Target: t, First: r == 0 || targets[r-1].Path[0] != t.Path[0]}
			for d := range t.Path {
				if r > 0 && samePrefix(targets[r-1].Path, t.Path, d+1) {
					continue
				}
				span := 1
				for _, next := range targets[r+1:] {
					if !samePrefix(next.Path, t.Path, d+1) {
						break
					}
					span++
				}
				g := GroupView{Name: t.Path[d], ID: strings.Join(t.Path[:d+1], "/"), Rowspan: span, Gate: isGate(t, d)}
				if d == len(t.Path)-1 {
					g.Target = t.Name
				}
				row.Groups = append(row.Groups, g)
			}
			for _, c := range t.Cells {
				row.Cells = append(row.Cells, cellView(c))
			}
			cv.Rows = append(cv.Rows, row)
		}
		v.ClusterTypes = append(v.ClusterTypes, cv)
	}
	return v
}

func cellView(c Cell) CellView {
	cv := CellView{Cell: c, Text: strings.Join(c.Revisions(), ", ")}
	if len(c.Versions) == 0 {
		cv.Text = "-"
		if len(c.Disabled) > 0 {
			cv.Text = "off"
		}
	}
	var title []string
	for _, v := range c.Versions {
		src := v.RepoURL
		if v.Chart != "" {
			src += " " + v.Chart
		}
		if v.Path != "" {
			src += " " + v.Path
		}
		line := v.Resource + ": " + strings.TrimSpace(src) + " @ " + v.Revision
		if v.SetAt != "" {
			line += " (" + v.SetAt + ")"
		}
		title = append(title, line)
	}
	for _, d := range c.Disabled {
		title = append(title, d+": disabled")
	}
	keys := make([]string, len(c.Patches))
	for i, p := range c.Patches {
		keys[i] = c.Component + "/" + p
	}
	if c.Live != nil {
		title = append(title, liveTitle(c.Live))
	}
	cv.Title = strings.Join(title, "\n")
	cv.Keys = strings.Join(keys, " ")
	return cv
}

// ShadowTitle says which fields of the patch called name the cell's target
// does not get, and which file sets each.
func (c Cell) ShadowTitle(name string) string {
	var lines []string
	for _, s := range c.Shadowed {
		if s.Patch == name {
			lines = append(lines, s.Field+" is set again by "+s.By)
		}
	}
	return strings.Join(lines, "\n")
}

// Templates returns the HTML templates: "status-style" (CSS),
// "status-matrix" and "status-patches" (one cluster type's matrix and
// patches, given a CTView with its View as .Link via "dict"), and
// "status-page", the whole self-contained page of a *View.
func Templates() *template.Template {
	return template.Must(template.New("status").Funcs(Funcs()).Parse(htmlTemplates))
}

// Funcs are the functions the templates use.
func Funcs() template.FuncMap {
	return template.FuncMap{
		"join": strings.Join,
		"ctx": func(v *View, ct CTView) map[string]any {
			return map[string]any{"View": v, "CT": ct, "Link": v.Link}
		},
		"short":     func(p string) string { return strings.TrimPrefix(p, "patch-") },
		"stateWord": StateWord,
	}
}

// WriteHTML writes the status as a self-contained HTML page: no scripts,
// styles or fonts from anywhere else.
func WriteHTML(w io.Writer, s *Status) error {
	return Templates().ExecuteTemplate(w, "status-page", NewView(s, nil))
}
