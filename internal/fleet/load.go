package fleet

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/strata-fleet/strata/internal/parallel"
	"github.com/strata-fleet/strata/internal/rootfs"
	"github.com/strata-fleet/strata/internal/values"
)

// Fleet is a loaded fleet repository.
type Fleet struct {
	FS           fs.FS
	Config       *Config
	ClusterTypes []*ClusterType
	// Targets are the full-depth nodes of the sequence in rollout order.
	Targets []*Node
	// Clusters is the inventory, config/clusters/, in name order.
	Clusters []*Cluster
	// Global is the global layer, config/global/ (config.yaml's global:
	// true); nil when off.
	Global *Global

	byTargetOnce sync.Once
	byTarget     map[string][]*Cluster // type + "\x00" + target ID -> clusters (ClustersAt)
}

// WithClusters is the fleet with the inventory cs instead of its own: a new
// value, so that what f caches about its clusters (ClustersAt) is not shared.
func (f *Fleet) WithClusters(cs []*Cluster) *Fleet {
	return &Fleet{FS: f.FS, Config: f.Config, ClusterTypes: f.ClusterTypes, Targets: f.Targets, Clusters: cs, Global: f.Global}
}

// ClusterType is config/<name>/: its defaults and components.
type ClusterType struct {
	Name string
	Dir  string
	// Layout is where the cluster type's targets' output goes
	// (Config.Layout; nil: the default).
	Layout *Layout
	// At lists the nodes under which the cluster type exists (config.yaml's
	// at:), nil when it exists at every target; see ExistsAt.
	At []*Node
	// Targets are the full-depth nodes where the cluster type exists, in
	// rollout order: Fleet.Targets, or those under At.
	Targets    []*Node
	Defaults   *File
	Components []*Component // sorted by name
	// Global is the fleet's global layer, nil when off.
	Global *Global
}

// Component is config/<type>/<name>/.
type Component struct {
	Name     string
	Dir      string
	Values   *File
	Metadata *File // nil when absent
	// History is history.yaml, the record of the patches folded into
	// values.yaml (written by promote, never read to render); nil when
	// absent.
	History *File
	// Levels holds the level directories that exist, by node ID.
	Levels map[string]*Level
	// Chart is the chart directory the component was discovered from
	// (config.yaml's charts:), nil for a component of config/ alone.
	// Its values.yaml may then be absent (Values holds no bytes).
	Chart *Chart

	base   baseCache
	atNode sync.Map // *Node -> *nodeValues
}

// HistoryFile is the name of a component's history of folded patches.
const HistoryFile = "history.yaml"

// Level is a level directory of a component: the files that apply to every
// target under one node.
type Level struct {
	Node     *Node
	Dir      string
	Override *File   // nil when absent
	Patches  []*File // patch-*.yaml in file-name order
}

// Files returns the level's override (if any) then its patches.
func (l *Level) Files() []*File {
	if l.Override == nil {
		return l.Patches
	}
	return append([]*File{l.Override}, l.Patches...)
}

// ClusterType returns the cluster type called name, or nil.
func (f *Fleet) ClusterType(name string) *ClusterType {
	for _, ct := range f.ClusterTypes {
		if ct.Name == name {
			return ct
		}
	}
	return nil
}

// Component returns the component called name, or nil.
func (ct *ClusterType) Component(name string) *Component {
	for _, c := range ct.Components {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Layers returns the level directories of c that apply to the target under
// node n, outermost first.
func (c *Component) Layers(n *Node) []*Level {
	var out []*Level
	var chain []*Node
	for p := n; p != nil && p.Depth > 0; p = p.Parent {
		chain = append(chain, p)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		if l := c.Levels[chain[i].ID()]; l != nil {
			out = append(out, l)
		}
	}
	return out
}

// Load reads the fleet repository in fsys.
func Load(fsys fs.FS) (*Fleet, error) { return load(fsys, selection{}) }

// LoadReusing is Load taking config.yaml as parsed (ReadConfig), when
// config.yaml still holds the bytes it was parsed from; parsed may be nil.
func LoadReusing(fsys fs.FS, parsed *Config) (*Fleet, error) {
	return load(fsys, selection{parsed: parsed})
}

// ReadConfig reads and parses config.yaml alone, or returns parsed when
// config.yaml still holds the bytes it was parsed from (parsed may be nil).
func ReadConfig(fsys fs.FS, parsed *Config) (*Config, error) {
	data, err := fs.ReadFile(fsys, ConfigPath)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s not found: this is not a fleet repository (use --root, or strata init)", ConfigPath)
		}
		return nil, readError(fsys, ConfigPath, err)
	}
	if parsed != nil && parsed.File != nil && bytes.Equal(parsed.File.Data, data) {
		return parsed, nil
	}
	return parseConfig(NewFile(ConfigPath, data))
}

// LoadComponent reads only what one component of one cluster type needs:
// config.yaml, the inventory, the cluster type's defaults and the
// component's directory (promote works on nothing else). The other cluster
// types and components are absent from the result.
func LoadComponent(fsys fs.FS, clusterType, component string) (*Fleet, error) {
	return load(fsys, selection{clusterType: clusterType, component: component})
}

// selection is the part of the fleet load reads: all of it (the zero
// value), LoadComponent's or LoadScope's.
type selection struct {
	clusterType, component string
	scope                  Scope   // nil: every cluster type and node
	parsed                 *Config // config.yaml as parsed before, or nil
}

func load(fsys fs.FS, sel selection) (*Fleet, error) {
	cfg, err := ReadConfig(fsys, sel.parsed)
	if err != nil {
		return nil, err
	}
	f := &Fleet{FS: fsys, Config: cfg, Targets: cfg.Root.leavesAtDepth(len(cfg.Dimensions))}
	l := loader{fsys: fsys, cfg: cfg, onlyComponent: sel.component}
	if c, ok := fsys.(cacher); ok { // the level directories, each opened once
		cache := c.Cache()
		defer cache.Close()
		l.fsys = cache
	}
	if cfg.Global {
		f.Global = l.global()
	}
	for _, decl := range cfg.ClusterTypes {
		if sel.clusterType != "" && decl.Name != sel.clusterType {
			continue
		}
		if sel.scope != nil && !l.enter(sel.scope, decl.Name) {
			continue
		}
		if ct := l.clusterType(decl, f.Targets); ct != nil {
			ct.Global = f.Global
			f.ClusterTypes = append(f.ClusterTypes, ct)
		}
	}
	f.Clusters = l.clusters()
	for _, err := range f.checkLabelRevisions() {
		l.fail(err)
	}
	for _, err := range f.checkRootNames() {
		l.fail(err)
	}
	if len(l.errs) > 0 {
		return nil, errors.Join(l.errs...)
	}
	return f, nil
}

func (n *Node) leavesAtDepth(depth int) []*Node {
	if len(n.Children) == 0 {
		if n.Depth == depth {
			return []*Node{n}
		}
		return nil
	}
	var out []*Node
	for _, c := range n.Children {
		out = append(out, c.leavesAtDepth(depth)...)
	}
	return out
}

// cacher is a repository that reads many files cheaper through a cache
// (package rootfs), for the time of one load.
type cacher interface{ Cache() *rootfs.Cache }

type loader struct {
	fsys fs.FS
	cfg  *Config
	errs []error
	// onlyComponent, when set, is the one component directory read.
	onlyComponent string
	// under, when set, are the nodes of the cluster type being read
	// whose targets are wanted (LoadScope): level directories neither on
	// the way to one nor under one are not read.
	under []*Node
}

// fail records a problem of the load. All are kept: the CLI prints the
// first ones and says how many there are (-o json lists them all).
func (l *loader) fail(err error) { l.errs = append(l.errs, err) }

func (l *loader) clusterType(decl ClusterTypeDecl, targets []*Node) *ClusterType {
	dir := "config/" + decl.Name
	entries, err := l.readDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			l.fail(&values.Error{Pos: decl.Pos, Path: []string{"cluster_types"},
				Msg:  fmt.Sprintf("cluster type %q has no directory %s/", decl.Name, dir),
				Hint: fmt.Sprintf("create %s/ with defaults.yaml and one directory per component, or remove %q from cluster_types", dir, decl.Name)})
		} else {
			l.fail(err)
		}
		return nil
	}
	ct := &ClusterType{Name: decl.Name, Dir: dir, Layout: l.cfg.Layout, At: decl.At, Targets: targetsOf(targets, decl.At)}
	if l.under != nil {
		ct.Targets = targetsOf(ct.Targets, l.under)
	}
	// The components are read in parallel (a large fleet is thousands of
	// small files), each by a loader of its own; their errors are reported
	// in the order of the directory, as when read one by one.
	charts := l.discoverCharts(decl.Name)
	var dirs []int // the entries that are components' directories
	for i, e := range entries {
		if e.IsDir() && (l.onlyComponent == "" || e.Name() == l.onlyComponent) {
			dirs = append(dirs, i)
		}
	}
	comps := make([]*Component, len(entries))
	errs := make([][]error, len(entries))
	parallel.Each(2*runtime.GOMAXPROCS(0), len(dirs), func(k int) {
		i := dirs[k]
		cl := *l // the same settings, errors of its own
		cl.errs = nil
		comps[i] = cl.component(ct, dir+"/"+entries[i].Name(), entries[i].Name(), charts[entries[i].Name()])
		errs[i] = cl.errs
	})
	for i, e := range entries {
		if e.Name() == "defaults.yaml" && !e.IsDir() {
			ct.Defaults = l.readFile(dir + "/" + e.Name())
		}
		for _, err := range errs[i] {
			l.fail(err)
		}
		if comps[i] != nil {
			ct.Components = append(ct.Components, comps[i])
		}
	}
	for name, ch := range charts { // charts with no directory of their own under config/<type>/
		if ct.Component(name) == nil && !slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return e.Name() == name && e.IsDir() }) {
			cdir := dir + "/" + name
			ct.Components = append(ct.Components, &Component{Name: name, Dir: cdir, Values: NewFile(cdir+"/values.yaml", nil), Levels: map[string]*Level{}, Chart: ch})
		}
	}
	if ct.Defaults == nil {
		l.fail(&values.Error{Pos: values.Pos{File: dir + "/defaults.yaml"},
			Msg:  fmt.Sprintf("cluster type %q has no defaults.yaml", decl.Name),
			Hint: "create it with the default item of each section: applications: {default: {...}}"})
	}
	slices.SortFunc(ct.Components, func(a, b *Component) int { return strings.Compare(a.Name, b.Name) })
	return ct
}

func (l *loader) component(ct *ClusterType, dir, name string, chart *Chart) *Component {
	if err := checkName(name); err != nil {
		l.fail(&values.Error{Pos: values.Pos{File: dir + "/"}, Msg: "component directory: " + err.Error(),
			Hint: "rename the directory: a component's name is a plain path segment (" + nameHint + ")"})
		return nil
	}
	entries, err := l.readDir(dir)
	if err != nil {
		l.fail(err)
		return nil
	}
	if len(entries) == 0 && chart == nil {
		return nil
	}
	c := &Component{Name: name, Dir: dir, Levels: map[string]*Level{}, Chart: chart}
	for _, e := range entries {
		p := dir + "/" + e.Name()
		switch {
		case e.IsDir():
			l.level(ct, c, l.cfg.Root, p, e.Name())
		case e.Name() == "values.yaml":
			c.Values = l.readFile(p)
		case e.Name() == "metadata.yaml":
			c.Metadata = l.readFile(p)
		case e.Name() == HistoryFile:
			c.History = l.readFile(p)
		case e.Name() == "override.yaml" || isPatch(e.Name()):
			l.fail(&values.Error{Pos: values.Pos{File: p},
				Msg:  e.Name() + " directly under a component has no effect",
				Hint: fmt.Sprintf("overrides and patches go in a level directory, such as %s/%s/%s; base values go in %s/values.yaml", dir, firstChild(l.cfg.Root), e.Name(), dir)})
		}
	}
	if c.Values == nil && chart != nil {
		c.Values = NewFile(dir+"/values.yaml", nil) // the chart's item alone
	}
	if c.Values == nil {
		l.fail(&values.Error{Pos: values.Pos{File: dir + "/values.yaml"},
			Msg:  fmt.Sprintf("component %q has no values.yaml", name),
			Hint: "every component needs its base values: applications: {<name>: {...}}"})
		return nil
	}
	return c
}

func firstChild(n *Node) string {
	if len(n.Children) == 0 {
		return "<node>"
	}
	return n.Children[0].Name
}

// isPatch reports whether name is a patch file name.
func isPatch(name string) bool {
	return strings.HasPrefix(name, "patch-") && strings.HasSuffix(name, ".yaml") && len(name) > len("patch-.yaml")
}

// level reads the level directory dir, which must name a child of parent.
func (l *loader) level(ct *ClusterType, c *Component, parent *Node, dir, name string) {
	node := parent.Child(name)
	if node == nil {
		var names []string
		for _, ch := range parent.Children {
			names = append(names, ch.Name)
		}
		msg := fmt.Sprintf("directory %q names no %s of the sequence", name, l.dimensionUnder(parent))
		if parent.Depth > 0 {
			msg += fmt.Sprintf(" under %q", parent.ID())
		}
		e := &values.Error{Pos: values.Pos{File: dir + "/"}, Msg: msg}
		if len(names) == 0 {
			e.Hint = fmt.Sprintf("%q is a full-depth target: it has no level directories under it", parent.ID())
		} else {
			e.Hint = didYouMean(name, names)
		}
		l.fail(e)
		return
	}
	if !l.wanted(node) {
		return
	}
	entries, err := l.readDir(dir)
	if err != nil {
		l.fail(err)
		return
	}
	lv := &Level{Node: node, Dir: dir}
	for _, e := range entries {
		p := dir + "/" + e.Name()
		switch {
		case e.IsDir():
			l.level(ct, c, node, p, e.Name())
		case (e.Name() == "override.yaml" || isPatch(e.Name())) && !ct.ExistsAt(node):
			l.fail(l.notThere(ct, node, p))
		case e.Name() == "override.yaml":
			lv.Override = l.readFile(p)
		case isPatch(e.Name()):
			if err := checkName(strings.TrimSuffix(e.Name(), ".yaml")); err != nil {
				l.fail(&values.Error{Pos: values.Pos{File: p}, Msg: "patch file: " + err.Error(),
					Hint: "rename the file: a patch's name is a plain path segment (" + nameHint + ")"})
				continue
			}
			lv.Patches = append(lv.Patches, l.readFile(p))
		case e.Name() == ".gitkeep":
		default:
			stray := &values.Error{Pos: values.Pos{File: p}, Msg: "stray file in a level directory",
				Hint: "only override.yaml and patch-*.yaml belong here; rename, move or remove it"}
			if s := closest(e.Name(), []string{"override.yaml"}); s != "" {
				stray.Hint = fmt.Sprintf("did you mean %s? ", s) + stray.Hint
			} else if strings.HasPrefix(e.Name(), "patch") {
				stray.Hint = "a patch is named patch-<something>.yaml; " + stray.Hint
			}
			l.fail(stray)
		}
	}
	slices.SortFunc(lv.Patches, func(a, b *File) int { return strings.Compare(a.Path, b.Path) })
	if lv.Override != nil || len(lv.Patches) > 0 {
		c.Levels[node.ID()] = lv
	}
}

func (l *loader) dimensionUnder(parent *Node) string {
	if parent.Depth < len(l.cfg.Dimensions) {
		return l.cfg.Dimensions[parent.Depth].Singular
	}
	return "node"
}
