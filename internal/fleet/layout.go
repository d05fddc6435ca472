package fleet

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/strata-fleet/strata/internal/values"
)

// DefaultOutputRoot is the directory of the rendered tree when config.yaml
// has no layout: key: rendered/<cluster type>/<node path>/.
const DefaultOutputRoot = "rendered"

// ClusterTypePlaceholder is the placeholder of a layout pattern that stands
// for the target's cluster type; the others are the dimensions' names.
const ClusterTypePlaceholder = "clusterType"

// Layout is where render writes each target's output: config.yaml's
// layout: key (a strata extension), or the default.
//
//	layout:
//	  path: argocd/rendered/{environment}/{region}/{clusterType}-manifests
//
// A pattern is a slash path relative to the repository; each {name} in it
// is the target's cluster type ({clusterType}) or its node's name at a
// dimension (singular or plural: {environment} or {environments}). Its
// leading segments without placeholders are the output root, the one
// directory render owns: what it holds outside every target's directory is
// stale and removed. Every target has a directory of its own.
//
// The zero Layout (and a nil one) is the default:
// rendered/<cluster type>/<node path>.
type Layout struct {
	// Pattern is the layout's path: as written; "" for the default.
	Pattern string
	Pos     values.Pos
	// root is the output root; "" for the default.
	root string
	segs []layoutSegment

	// values, when set, is the plain values file written beside each
	// target's directory (layout.values: layoutvalues.go).
	values *layoutValues
	// manifests, when set, is the file (or {name} file pattern) that holds
	// the target's resources as plain YAML (layout.manifests:
	// layoutmanifests.go).
	manifests string

	dirsOnce sync.Once
	dirs     map[string]LayoutTarget // every target's directory and values file, for TargetAt
}

// LayoutTarget is a target named by its cluster type and node.
type LayoutTarget struct {
	ClusterType string
	Node        *Node
}

// ID is the target's identity, "<cluster type>/<node path>", whatever the
// layout: what state, plans and messages name it by.
func (t LayoutTarget) ID() string { return t.ClusterType + "/" + t.Node.ID() }

// layoutSegment is one segment of a pattern: literal text and placeholders
// in order. A placeholder is dim >= 0 (a dimension's index) or dim ==
// ctDim (the cluster type); literal parts have dim == literalPart.
type layoutSegment []layoutPart

type layoutPart struct {
	text string
	dim  int
}

const (
	literalPart = -2
	ctDim       = -1
)

// Root returns the output root: the directory render owns.
func (l *Layout) Root() string {
	if l == nil || l.root == "" {
		return DefaultOutputRoot
	}
	return l.root
}

// Default reports whether l is the default layout.
func (l *Layout) Default() bool { return l == nil || l.segs == nil }

// Dir returns the directory, relative to the repository, of the target of
// cluster type ct at the full-depth node n.
func (l *Layout) Dir(ct string, n *Node) string {
	if l.Default() {
		return DefaultOutputRoot + "/" + ct + "/" + n.ID()
	}
	names := n.Path()
	return l.Expand(ct, func(i int) string { return names[i] }, len(names))
}

// Expand returns the layout's path for cluster type ct with dim(i) for
// the i-th dimension's placeholder: Dir, or a template of the path where
// the names are only known later (a hub's root ApplicationSet reads them
// from cluster secrets' labels). dims is the fleet's number of dimensions.
func (l *Layout) Expand(ct string, dim func(i int) string, dims int) string {
	if l.Default() {
		parts := []string{DefaultOutputRoot, ct}
		for i := range dims {
			parts = append(parts, dim(i))
		}
		return strings.Join(parts, "/")
	}
	var b strings.Builder
	for i, seg := range l.segs {
		if i > 0 {
			b.WriteByte('/')
		}
		for _, p := range seg {
			switch p.dim {
			case literalPart:
				b.WriteString(p.text)
			case ctDim:
				b.WriteString(ct)
			default:
				b.WriteString(dim(p.dim))
			}
		}
	}
	return b.String()
}

// NodeDirs returns the directories that hold the output of the targets of
// cluster type ct at or under the node n, and nothing else: for the default
// layout the node's own directory, else each target's (the targets of ct,
// from Targets, under n), with its values file when the layout has one.
func (l *Layout) NodeDirs(ct string, n *Node, targets []*Node) []string {
	if l.Default() {
		if n.Depth == 0 {
			return []string{DefaultOutputRoot + "/" + ct}
		}
		return []string{DefaultOutputRoot + "/" + ct + "/" + n.ID()}
	}
	var out []string
	for _, t := range targets {
		if n.covers(t) {
			out = append(out, l.Paths(ct, t)...)
		}
	}
	return out
}

// TargetAt returns the target whose directory is p or holds the path p,
// among the targets of c (each cluster type where at: places it).
func (c *Config) TargetAt(p string) (LayoutTarget, bool) {
	l := c.Layout
	if l.Default() {
		rest, ok := strings.CutPrefix(p, DefaultOutputRoot+"/")
		if !ok {
			return LayoutTarget{}, false
		}
		parts := strings.Split(rest, "/")
		if len(parts) < len(c.Dimensions)+1 {
			return LayoutTarget{}, false
		}
		n := c.Find(parts[1 : len(c.Dimensions)+1])
		i := slices.IndexFunc(c.ClusterTypes, func(d ClusterTypeDecl) bool { return d.Name == parts[0] })
		if n == nil || i < 0 || len(targetsOf([]*Node{n}, c.ClusterTypes[i].At)) == 0 {
			return LayoutTarget{}, false
		}
		return LayoutTarget{ClusterType: parts[0], Node: n}, true
	}
	l.dirsOnce.Do(func() { l.dirs = c.layoutDirs() })
	for d := p; d != "." && d != "/" && d != ""; d = path.Dir(d) {
		if t, ok := l.dirs[d]; ok {
			return t, true
		}
		if d == l.root {
			break
		}
	}
	return LayoutTarget{}, false
}

// layoutDirs maps the directory of every target of c to the target.
func (c *Config) layoutDirs() map[string]LayoutTarget {
	out := map[string]LayoutTarget{}
	for _, t := range c.layoutTargets() {
		for _, p := range c.Layout.Paths(t.ClusterType, t.Node) {
			out[p] = t
		}
	}
	return out
}

// layoutTargets lists every target of c: cluster types in declaration
// order, nodes in rollout order.
func (c *Config) layoutTargets() []LayoutTarget {
	leaves := c.Root.leavesAtDepth(len(c.Dimensions))
	var out []LayoutTarget
	for _, d := range c.ClusterTypes {
		for _, n := range targetsOf(leaves, d.At) {
			out = append(out, LayoutTarget{ClusterType: d.Name, Node: n})
		}
	}
	return out
}

// reservedRoots are directories of the repository that an output root can
// neither be, be under, nor hold: strata's inputs, git's data and the
// staging area of render.
var reservedRoots = []string{"config", "argocd-apps", ".git", ".strata-render"}

// parseLayout reads config.yaml's layout: key; c's dimensions, sequence and
// cluster types are parsed.
func (c *Config) parseLayout(v *values.Value) (*Layout, error) {
	if v == nil || v.Kind == values.Null {
		return nil, nil
	}
	path := []string{"layout"}
	if v.Kind != values.Map {
		e := values.TypeError(v, path, values.Map)
		e.Hint = "layout: {path: rendered/{clusterType}/{environment}/...}"
		return nil, e
	}
	if err := knownKeys(v, path, "path", "values", "manifests"); err != nil {
		return nil, err
	}
	p := v.Get("path")
	if p == nil {
		return nil, &values.Error{Pos: v.Pos, Path: path, Msg: "missing key path",
			Hint: "path is each target's directory, a pattern over the dimensions and the cluster type: path: deploy/{clusterType}/{environment}"}
	}
	l, err := c.parseLayoutPattern(p, append(path, "path"))
	if err != nil {
		return nil, err
	}
	if err := c.checkLayoutDistinct(l, p, append(path, "path")); err != nil {
		return nil, err
	}
	if err := c.parseLayoutValues(l, v.Get("values")); err != nil {
		return nil, err
	}
	if err := parseLayoutManifests(l, v.Get("manifests")); err != nil {
		return nil, err
	}
	return l, nil
}

// parseLayoutPattern parses a layout pattern, checking its syntax, its
// placeholders and its output root.
func (c *Config) parseLayoutPattern(p *values.Value, path []string) (*Layout, error) {
	if p.Kind != values.String {
		return nil, values.TypeError(p, path, values.String)
	}
	s := p.Text
	bad := func(msg, hint string) error { return &values.Error{Pos: p.Pos, Path: path, Msg: msg, Hint: hint} }
	const shape = "a slash path relative to the repository, such as deploy/{clusterType}/{environment}/{region}"
	switch {
	case s == "":
		return nil, bad("the layout's path is empty", shape)
	case strings.HasPrefix(s, "/"):
		return nil, bad(fmt.Sprintf("the layout's path %q is absolute", s), shape)
	case strings.ContainsRune(s, '\\'):
		return nil, bad(fmt.Sprintf("the layout's path %q holds '\\'", s), "separate directories with '/': "+shape)
	case strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) || !unicode.IsPrint(r) && r != ' ' }):
		return nil, bad(fmt.Sprintf("the layout's path %q holds a character that does not print", s), shape)
	}
	l := &Layout{Pattern: s, Pos: p.Pos}
	rootDone := false
	var root []string
	for _, raw := range strings.Split(s, "/") {
		switch raw {
		case "":
			return nil, bad(fmt.Sprintf("the layout's path %q has an empty segment", s), shape)
		case ".", "..":
			return nil, bad(fmt.Sprintf("the layout's path %q has a %q segment: it must stay inside the repository", s, raw), shape)
		}
		seg, err := c.parseLayoutSegment(raw)
		if err != nil {
			return nil, bad(err.Error(), c.placeholderHint())
		}
		if len(seg) == 1 && seg[0].dim == literalPart && !rootDone {
			root = append(root, raw)
		} else {
			rootDone = true
		}
		l.segs = append(l.segs, seg)
	}
	if len(root) == 0 {
		return nil, bad(fmt.Sprintf("the layout's path %q starts with a placeholder: render needs a directory of its own", s),
			"start the path with a fixed directory that holds only rendered output, such as rendered/ or argocd/rendered/")
	}
	if !rootDone {
		return nil, bad(fmt.Sprintf("the layout's path %q has no placeholder: every target would write to one directory", s), c.placeholderHint())
	}
	l.root = strings.Join(root, "/")
	if err := CheckOutputRoot(l.root); err != nil {
		return nil, bad("the layout's "+err.Error(),
			"render owns its output root and removes what it does not write there: choose a directory that holds only rendered output")
	}
	return l, nil
}

// CheckOutputRoot reports whether root can be an output root: a clean
// relative slash path that neither is, is under nor holds a directory of
// reservedRoots, and has no hidden directory.
func CheckOutputRoot(root string) error {
	if !fs.ValidPath(root) || root == "." {
		return fmt.Errorf("output root %q is not a clean relative path", root)
	}
	for _, r := range reservedRoots {
		if root == r || strings.HasPrefix(root, r+"/") || strings.HasPrefix(r, root+"/") {
			return fmt.Errorf("output root %s/ overlaps %s/, which is not render's", root, r)
		}
	}
	for _, seg := range strings.Split(root, "/") {
		if strings.HasPrefix(seg, ".") {
			return fmt.Errorf("output root %s/ has a hidden directory %q", root, seg)
		}
	}
	return nil
}

// parseLayoutSegment splits one segment of a pattern into literal text and
// placeholders.
func (c *Config) parseLayoutSegment(raw string) (layoutSegment, error) {
	var seg layoutSegment
	rest := raw
	for rest != "" {
		i := strings.IndexAny(rest, "{}")
		if i < 0 {
			seg = append(seg, layoutPart{text: rest, dim: literalPart})
			break
		}
		if rest[i] == '}' {
			return nil, fmt.Errorf("the segment %q has a '}' without its '{'", raw)
		}
		if i > 0 {
			seg = append(seg, layoutPart{text: rest[:i], dim: literalPart})
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			return nil, fmt.Errorf("the segment %q has a '{' without its '}'", raw)
		}
		name := rest[i+1 : i+j]
		if strings.ContainsRune(name, '{') {
			return nil, fmt.Errorf("the segment %q has a '{' inside a placeholder", raw)
		}
		dim := c.placeholder(name)
		if dim == literalPart {
			msg := fmt.Sprintf("unknown placeholder {%s}", name)
			if s := closest(name, c.placeholders()); s != "" {
				msg += fmt.Sprintf(" (did you mean {%s}?)", s)
			}
			return nil, fmt.Errorf("%s", msg)
		}
		if len(seg) > 0 && seg[len(seg)-1].dim != literalPart {
			return nil, fmt.Errorf("the segment %q has two placeholders side by side: their values could not be told apart", raw)
		}
		seg = append(seg, layoutPart{dim: dim})
		rest = rest[i+j+1:]
	}
	return seg, nil
}

// placeholder returns what the placeholder name stands for: ctDim, a
// dimension's index, or literalPart when it is unknown.
func (c *Config) placeholder(name string) int {
	if name == ClusterTypePlaceholder {
		return ctDim
	}
	if i := c.DimensionIndex(name); i >= 0 {
		return i
	}
	return literalPart
}

// placeholders lists the placeholders a pattern may use.
func (c *Config) placeholders() []string {
	out := []string{ClusterTypePlaceholder}
	for _, d := range c.Dimensions {
		out = append(out, d.Singular)
	}
	return out
}

func (c *Config) placeholderHint() string {
	var ps []string
	for _, p := range c.placeholders() {
		ps = append(ps, "{"+p+"}")
	}
	return "placeholders: " + strings.Join(ps, ", ") + "; the rest of the path is written as it is"
}

// checkLayoutDistinct refuses a layout that gives two targets one
// directory (also where they differ only in case: one directory on macOS
// and Windows). Every target's directory has as many segments as the
// pattern: none is inside another's.
func (c *Config) checkLayoutDistinct(l *Layout, p *values.Value, path []string) error {
	seen := map[string]LayoutTarget{}
	for _, t := range c.layoutTargets() {
		dir := l.Dir(t.ClusterType, t.Node)
		key := strings.ToLower(dir)
		if prev, ok := seen[key]; ok {
			return &values.Error{Pos: p.Pos, Path: path,
				Msg:  fmt.Sprintf("the layout gives targets %s and %s one directory, %s", prev.ID(), t.ID(), dir),
				Hint: "every target needs a directory of its own: use a placeholder for each dimension that tells them apart, and {clusterType} when there are several cluster types"}
		}
		seen[key] = t
	}
	return nil
}

// OutputRoot returns the directory of the fleet's rendered tree: its
// layout's root, rendered/ by default.
func (c *Config) OutputRoot() string { return c.Layout.Root() }

// TargetDir returns the output directory of the target of cluster type ct
// at the full-depth node n: the one place a target's directory is made.
func (c *Config) TargetDir(ct string, n *Node) string { return c.Layout.Dir(ct, n) }

// TargetDirOf returns the output directory of the target whose ID is id
// ("<cluster type>/<node path>"); false when config.yaml has no such
// target (with the default layout, the directory is still known).
func (c *Config) TargetDirOf(id string) (string, bool) {
	ct, nodeID, _ := strings.Cut(id, "/")
	n := c.nodeByID(nodeID)
	if n == nil || n.Depth != len(c.Dimensions) {
		if c.Layout.Default() {
			return DefaultOutputRoot + "/" + id, false
		}
		return "", false
	}
	return c.Layout.Dir(ct, n), true
}

// NodeDirs returns the directories that hold the output of every target of
// cluster type ct at or under the node whose ID is nodeID ("" for all of
// them), and nothing else: with the default layout the node's directory,
// else each target's, and its values file when the layout has one. False
// when config.yaml has no such node.
func (c *Config) NodeDirs(ct, nodeID string) ([]string, bool) {
	if c.Layout.Default() {
		return []string{path.Join(DefaultOutputRoot, ct, nodeID)}, true
	}
	n := c.nodeByID(nodeID)
	if n == nil {
		return nil, false
	}
	var out []string
	for _, t := range c.layoutTargets() {
		if t.ClusterType == ct && n.covers(t.Node) {
			out = append(out, c.Layout.Paths(ct, t.Node)...)
		}
	}
	return out, true
}

// nodeByID returns the node whose ID is id ("" for the root), or nil.
func (c *Config) nodeByID(id string) *Node {
	if id == "" {
		return c.Root
	}
	return c.Find(strings.Split(id, "/"))
}
