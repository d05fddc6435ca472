package fleet

// Components discovered from chart directories (config.yaml's charts:) and
// the global layer under every cluster type (config.yaml's global:, the
// directory config/global/). Both are strata extensions, off unless
// declared.
//
//	charts:
//	  - dir: argocd/config/{clusterType}    # each cluster type's own charts
//	  - dir: argocd/config/shared           # charts that serve several types
//	    clusterTypes: [management-cluster, regional-cluster]
//	    application:                        # the item each chart makes
//	      destination: {namespace: '{chart}'}
//	      source: {path: '{path}'}
//	global: true

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/strata-fleet/strata/internal/values"
)

// GlobalDir is the global layer's directory, read when config.yaml says
// global: true.
const GlobalDir = "config/global"

// ChartDir is one item of config.yaml's charts:: a directory whose
// subdirectories holding a Chart.yaml are components.
type ChartDir struct {
	// Dir is the directory as written, relative to the repository; it may
	// hold {clusterType}, replaced by each cluster type's name.
	Dir string
	// ClusterTypes are the cluster types its charts serve; nil for every
	// cluster type.
	ClusterTypes []string
	// Application is the item each chart makes in applications:, with
	// {chart}, {path} and {clusterType} in its strings replaced; as
	// written, with config.yaml's positions.
	Application *values.Value
	Pos         values.Pos
}

// Chart is a component's chart directory, when the component was
// discovered from one.
type Chart struct {
	// Path is the chart's directory, relative to the repository.
	Path string
	// From is the charts: item that found it (its index and entry).
	From  int
	Entry *ChartDir
	// Item is the discovered item: Entry.Application with the
	// placeholders replaced, positions in config.yaml.
	Item *values.Value
}

// Serves reports whether the charts of d serve the cluster type ct.
func (d *ChartDir) Serves(ct string) bool {
	return d.ClusterTypes == nil || slices.Contains(d.ClusterTypes, ct)
}

// firstServed reports whether ct is the first cluster type of cfg that d
// serves.
func (d *ChartDir) firstServed(cfg *Config, ct string) bool {
	for _, decl := range cfg.ClusterTypes {
		if d.Serves(decl.Name) {
			return decl.Name == ct
		}
	}
	return false
}

// DirFor is d's directory for the cluster type ct.
func (d *ChartDir) DirFor(ct string) string {
	return strings.ReplaceAll(d.Dir, "{clusterType}", ct)
}

// ChartDirs lists the directories config.yaml's charts: reads, each once,
// in the order of the entries and the cluster types.
func (c *Config) ChartDirs() []string {
	var out []string
	for i := range c.Charts {
		for _, ct := range c.ClusterTypes {
			if d := c.Charts[i].DirFor(ct.Name); c.Charts[i].Serves(ct.Name) && !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	return out
}

// ChartFiles lists the Chart.yaml files of the charts config.yaml's
// charts: finds in fsys (what makes those components, besides config/):
// for readers that copy a part of the repository.
func (c *Config) ChartFiles(fsys fs.FS) []string {
	var out []string
	for _, dir := range c.ChartDirs() {
		entries, _ := fs.ReadDir(fsys, dir) // a missing directory: the load names it
		for _, e := range entries {
			if p := dir + "/" + e.Name() + "/Chart.yaml"; e.IsDir() {
				if _, err := fs.Stat(fsys, p); err == nil {
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// defaultApplication is the item of a charts: entry without application:.
const defaultApplication = "source: {path: '{path}'}\n"

func (c *Config) parseCharts(v *values.Value) error {
	if v == nil || v.Kind == values.Null {
		return nil
	}
	path := []string{"charts"}
	if v.Kind != values.List {
		e := values.TypeError(v, path, values.List)
		e.Hint = "charts lists directories of charts: charts: [{dir: argocd/config/{clusterType}}]"
		return e
	}
	for i, it := range v.Items {
		ipath := []string{"charts", fmt.Sprint(i)}
		if it.Kind != values.Map {
			return values.TypeError(it, ipath, values.Map)
		}
		if err := knownKeys(it, ipath, "dir", "clusterTypes", "application"); err != nil {
			return err
		}
		d := ChartDir{Pos: it.Pos}
		dv := it.Get("dir")
		if dv == nil {
			return &values.Error{Pos: it.Pos, Path: ipath, Msg: "missing key dir",
				Hint: "dir is the directory whose subdirectories are charts: dir: argocd/config/{clusterType}"}
		}
		if dv.Kind != values.String {
			return values.TypeError(dv, append(ipath, "dir"), values.String)
		}
		if err := checkChartDir(dv.Text); err != nil {
			return &values.Error{Pos: dv.Pos, Path: append(ipath, "dir"), Msg: err.Error(),
				Hint: "a directory of the repository, relative to its top, slash-separated, outside config/ (where strata's components live)"}
		}
		d.Dir = dv.Text
		if ctv := it.Get("clusterTypes"); ctv != nil {
			cpath := append(ipath[:2:2], "clusterTypes")
			if ctv.Kind != values.List || len(ctv.Items) == 0 {
				return &values.Error{Pos: ctv.Pos, Path: cpath, Msg: "expected a non-empty list of cluster types, got " + describe(ctv),
					Hint: "leave clusterTypes out for every cluster type"}
			}
			d.ClusterTypes = []string{}
			for j, t := range ctv.Items {
				if t.Kind != values.String || !slices.ContainsFunc(c.ClusterTypes, func(ct ClusterTypeDecl) bool { return ct.Name == t.Text }) {
					return &values.Error{Pos: t.Pos, Path: append(cpath, fmt.Sprint(j)), Msg: fmt.Sprintf("unknown cluster type %s", describe(t)),
						Hint: "one of: " + choices(c.clusterTypeNames())}
				}
				if slices.Contains(d.ClusterTypes, t.Text) {
					return values.Errorf(t.Pos, append(cpath, fmt.Sprint(j)), "cluster type %q is listed twice", t.Text)
				}
				d.ClusterTypes = append(d.ClusterTypes, t.Text)
			}
		}
		if av := it.Get("application"); av != nil {
			if av.Kind != values.Map || len(av.Keys) == 0 {
				e := values.TypeError(av, append(ipath[:2:2], "application"), values.Map)
				e.Hint = "the Application item each chart makes, as in values.yaml: {source: {path: '{path}'}, destination: {namespace: '{chart}'}}"
				return e
			}
			d.Application = av
		} else {
			d.Application, _ = values.Decode(ConfigPath, []byte(defaultApplication))
			d.Application = repositioned(d.Application, it.Pos)
		}
		for j := range c.Charts {
			if prev := &c.Charts[j]; prev.Dir == d.Dir {
				return &values.Error{Pos: dv.Pos, Path: append(ipath[:2:2], "dir"), Also: []values.Pos{prev.Pos},
					Msg: fmt.Sprintf("directory %s is listed twice in charts", d.Dir), Hint: "list it once, with every cluster type it serves"}
			}
		}
		c.Charts = append(c.Charts, d)
	}
	return nil
}

// checkChartDir checks a charts: directory as written.
func checkChartDir(dir string) error {
	rest := strings.ReplaceAll(dir, "{clusterType}", "x")
	switch {
	case dir == "" || !fs.ValidPath(rest) || rest == ".":
		return fmt.Errorf("%q is not a directory of the repository (relative, slash-separated, no '.' or '..' segments)", dir)
	case strings.ContainsAny(rest, "{}"):
		return fmt.Errorf("%q holds a placeholder other than {clusterType}", dir)
	case rest == "config" || strings.HasPrefix(rest, "config/"):
		return fmt.Errorf("%q is under config/, which holds strata's own files", dir)
	case rest == ".git" || strings.HasPrefix(rest, ".git/"):
		return fmt.Errorf("%q is Git's own directory", dir)
	}
	return nil
}

// repositioned is v with every node set at pos (a built-in default that
// config.yaml's entry stands for).
func repositioned(v *values.Value, pos values.Pos) *values.Value {
	out := &values.Value{Kind: v.Kind, Text: v.Text, Keys: v.Keys, Pos: pos}
	for _, x := range v.Vals {
		out.Vals = append(out.Vals, repositioned(x, pos))
	}
	for _, x := range v.Items {
		out.Items = append(out.Items, repositioned(x, pos))
	}
	return out
}

// expand is v with {chart}, {path} and {clusterType} replaced in every
// string (keys stay as written), positions kept.
func expand(v *values.Value, r *strings.Replacer) *values.Value {
	switch v.Kind {
	case values.String:
		if s := r.Replace(v.Text); s != v.Text {
			return values.NewString(s, v.Pos)
		}
		return v
	case values.Map:
		out := values.NewMap(v.Pos)
		out.KeyPos = v.KeyPos
		for i, k := range v.Keys {
			out.Keys = append(out.Keys, k)
			out.Vals = append(out.Vals, expand(v.Vals[i], r))
		}
		return out
	case values.List:
		out := &values.Value{Kind: values.List, Pos: v.Pos}
		for _, it := range v.Items {
			out.Items = append(out.Items, expand(it, r))
		}
		return out
	}
	return v
}

// parseGlobal reads config.yaml's global:.
func (c *Config) parseGlobal(v *values.Value) error {
	if v == nil || v.Kind == values.Null {
		return nil
	}
	if v.Kind != values.Bool {
		e := values.TypeError(v, []string{"global"}, values.Bool)
		e.Hint = "global: true reads " + GlobalDir + "/ (defaults.yaml and level directories) under every cluster type"
		return e
	}
	c.Global = v.Text == "true"
	if c.Global {
		for _, ct := range c.ClusterTypes {
			if ct.Name == "global" {
				return &values.Error{Pos: ct.Pos, Path: []string{"cluster_types"}, Also: []values.Pos{v.Pos},
					Msg: `cluster type "global" is reserved with global: true (` + GlobalDir + "/ holds the global layer)"}
			}
		}
	}
	return nil
}

// discoverCharts finds the charts of the cluster type ct: the
// subdirectories holding a Chart.yaml of each charts: directory that serves
// it, by component name. A chart found twice is an error.
func (l *loader) discoverCharts(ct string) map[string]*Chart {
	out := map[string]*Chart{}
	for i := range l.cfg.Charts {
		d := &l.cfg.Charts[i]
		if !d.Serves(ct) {
			continue
		}
		dir := d.DirFor(ct)
		entries, err := l.readDir(dir)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				l.fail(&values.Error{Pos: d.Pos, Path: []string{"charts", fmt.Sprint(i), "dir"},
					Msg:  fmt.Sprintf("charts directory %s (for cluster type %q) does not exist", dir, ct),
					Hint: "create it, or list the cluster types it serves under clusterTypes"})
			} else {
				l.fail(err)
			}
			continue
		}
		for _, e := range entries {
			p := dir + "/" + e.Name()
			if !e.IsDir() || !l.isFile(p+"/Chart.yaml") {
				continue
			}
			if l.onlyComponent != "" && e.Name() != l.onlyComponent {
				continue
			}
			if err := checkName(e.Name()); err != nil {
				if !strings.Contains(d.Dir, "{clusterType}") && !d.firstServed(l.cfg, ct) { // a shared directory's: named once
					continue
				}
				l.fail(&values.Error{Pos: values.Pos{File: p + "/"}, Msg: "chart directory: " + err.Error(),
					Hint: "rename the directory: a chart found by charts: is a component, and its name is a plain path segment (" + nameHint + ")"})
				continue
			}
			if prev := out[e.Name()]; prev != nil {
				l.fail(&values.Error{Pos: values.Pos{File: p + "/Chart.yaml", Line: 1, Col: 1}, Also: []values.Pos{{File: prev.Path + "/Chart.yaml", Line: 1, Col: 1}, d.Pos},
					Msg:  fmt.Sprintf("cluster type %q has two charts named %q: %s and %s", ct, e.Name(), prev.Path, p),
					Hint: "a component's name is its chart directory's: rename one, or narrow a charts: entry's clusterTypes"})
				continue
			}
			r := strings.NewReplacer("{chart}", e.Name(), "{path}", p, "{clusterType}", ct)
			out[e.Name()] = &Chart{Path: p, From: i, Entry: d, Item: expand(d.Application, r)}
		}
	}
	return out
}

// isFile reports whether p is a regular file (through a link inside the
// repository).
func (l *loader) isFile(p string) bool {
	info, err := fs.Stat(l.fsys, p)
	return err == nil && info.Mode().IsRegular()
}

// chartLayer is the values a discovered chart gives its component, under
// values.yaml: applications: {<name>: <item>}.
func (c *Component) chartLayer() *values.Value {
	out := values.NewMap(c.Chart.Entry.Pos)
	items := values.NewMap(c.Chart.Entry.Pos)
	items.Set(c.Name, c.Chart.Item)
	out.Set("applications", items)
	return out
}

// ValuesMapping is the component's values.yaml as a mapping; for a
// component discovered from a chart, an empty or absent values.yaml is an
// empty mapping.
func (c *Component) ValuesMapping() (*values.Value, error) {
	if c.Chart != nil && len(bytes.TrimSpace(c.Values.Data)) == 0 {
		return values.NewMap(values.Pos{File: c.Values.Path, Line: 1, Col: 1}), nil
	}
	return c.Values.Mapping("values.yaml")
}

// Global is the global layer, config/global/: section defaults under
// every cluster type's, and level directories whose override.yaml applies
// under each component's own level at that node.
type Global struct {
	Defaults *File // nil when absent
	Levels   map[string]*Level
}

// Layers returns the global level directories that apply to the target
// under n, outermost first.
func (g *Global) Layers(n *Node) []*Level {
	if g == nil {
		return nil
	}
	return (&Component{Levels: g.Levels}).Layers(n)
}

// global reads config/global/.
func (l *loader) global() *Global {
	entries, err := l.readDir(GlobalDir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			l.fail(&values.Error{Pos: values.Pos{File: GlobalDir + "/"},
				Msg:  "global: true in " + ConfigPath + ", but " + GlobalDir + "/ does not exist",
				Hint: "create it with defaults.yaml (applications: {default: {...}}) or level directories, or remove global: true"})
		} else {
			l.fail(err)
		}
		return nil
	}
	g := &Global{}
	holder := &Component{Name: "global", Dir: GlobalDir, Levels: map[string]*Level{}}
	every := &ClusterType{Name: "global"}
	for _, e := range entries {
		p := GlobalDir + "/" + e.Name()
		switch {
		case e.IsDir():
			l.level(every, holder, l.cfg.Root, p, e.Name())
		case e.Name() == "defaults.yaml":
			g.Defaults = l.readFile(p)
		case e.Name() == ".gitkeep":
		default:
			l.fail(&values.Error{Pos: values.Pos{File: p}, Msg: "stray file in " + GlobalDir + "/",
				Hint: "only defaults.yaml and level directories (holding override.yaml) belong here"})
		}
	}
	for _, lv := range holder.Levels {
		for _, p := range lv.Patches {
			l.fail(&values.Error{Pos: values.Pos{File: p.Path}, Msg: "a patch in the global layer",
				Hint: "patches are promoted per component; the global layer's levels hold override.yaml only"})
		}
	}
	g.Levels = holder.Levels
	return g
}

// sectionDefault returns the default item of section in a defaults file's
// mapping, or nil.
func sectionDefault(defaults *values.Value, section string) *values.Value {
	if sd := defaults.Get(section); sd != nil && sd.Kind == values.Map {
		return sd.Get("default")
	}
	return nil
}

// applyGlobal merges the global level lv's default items over every item
// of the sections of v (the layer under the component's own level at that
// node).
func applyGlobal(v *values.Value, lv *Level, keep bool) (*values.Value, error) {
	mapping := lv.Override.Mapping
	if !keep {
		mapping = lv.Override.mappingUnkept
	}
	o, err := mapping("override.yaml")
	if err != nil {
		return nil, err
	}
	if err := checkGlobalShape(o, lv.Override.Path); err != nil {
		return nil, err
	}
	out := values.NewMap(v.Pos)
	for i, section := range v.Keys {
		items := v.Vals[i]
		def := sectionDefault(o, section)
		if def == nil || items.Kind != values.Map {
			out.Set(section, items)
			continue
		}
		merged := values.NewMap(items.Pos)
		for j, name := range items.Keys {
			item := items.Vals[j]
			if item.Kind == values.Null {
				merged.Set(name, item)
				continue
			}
			merged.Set(name, values.Merge(item, def))
		}
		out.Set(section, merged)
	}
	return out, nil
}

// checkGlobalShape checks a global file: each section a mapping holding
// only default.
func checkGlobalShape(o *values.Value, file string) error {
	for i, section := range o.Keys {
		sd := o.Vals[i]
		if sd.Kind != values.Map {
			return values.TypeError(sd, []string{section}, values.Map)
		}
		if err := knownKeys(sd, []string{section}, "default"); err != nil {
			var e *values.Error
			if errors.As(err, &e) {
				e.Hint = file + " holds the default item of each section, applied to every item of every component: " + section + ": {default: {...}}"
			}
			return err
		}
	}
	return nil
}
