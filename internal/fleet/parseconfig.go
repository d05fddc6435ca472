package fleet

import (
	"fmt"
	"slices"
	"strings"

	"github.com/strata-fleet/strata/internal/values"
)

// parseConfig reads config.yaml's value into a Config.
func parseConfig(f *File) (*Config, error) {
	v, err := f.Mapping("config.yaml")
	if err != nil {
		return nil, err
	}
	if err := knownKeys(v, nil, "dimensions", "sequence", "cluster_types", "promotion", "repository", "rollout", "render", "notifications", "clusters", "revisions", "layout", "roots", "charts", "global"); err != nil {
		return nil, err
	}
	c := &Config{File: f, Root: &Node{Pos: v.Pos}}
	if c.Dimensions, err = parseDimensions(v, f); err != nil {
		return nil, err
	}
	if err := c.parseRevisions(v.Get("revisions")); err != nil {
		return nil, err
	}
	seq := v.Get("sequence")
	if seq == nil {
		return nil, &values.Error{Pos: v.Pos, Msg: "missing key sequence",
			Hint: "sequence nests the dimensions: sequence: {" + c.Dimensions[0].Name + ": [{name: ...}]}"}
	}
	if seq.Kind != values.Null {
		if seq.Kind != values.Map {
			e := values.TypeError(seq, []string{"sequence"}, values.Map)
			e.Hint = fmt.Sprintf("sequence nests the dimensions under their names: sequence: {%s: [{name: ...}]}", c.Dimensions[0].Name)
			return nil, e
		}
		if err := c.parseNodes(c.Root, seq, []string{"sequence"}); err != nil {
			return nil, err
		}
	}
	if c.ClusterTypes, err = c.parseClusterTypes(v, f); err != nil {
		return nil, err
	}
	if err := c.parseCharts(v.Get("charts")); err != nil {
		return nil, err
	}
	if err := c.parseGlobal(v.Get("global")); err != nil {
		return nil, err
	}
	if err := c.parsePromotion(v.Get("promotion")); err != nil {
		return nil, err
	}
	if err := c.parseRepository(v.Get("repository")); err != nil {
		return nil, err
	}
	if r := v.Get("rollout"); r != nil {
		if c.Rollout, err = parseRollout(r, []string{"rollout"}); err != nil {
			return nil, err
		}
	}
	if c.Render, err = parseRender(v.Get("render")); err != nil {
		return nil, err
	}
	if c.Notifications, err = parseNotifications(v.Get("notifications")); err != nil {
		return nil, err
	}
	if c.Clusters, err = parseClusters(v.Get("clusters")); err != nil {
		return nil, err
	}
	if err := c.checkFactKeys(); err != nil {
		return nil, err
	}
	if c.Layout, err = c.parseLayout(v.Get("layout")); err != nil {
		return nil, err
	}
	if c.Roots, err = c.parseRoots(v.Get("roots")); err != nil {
		return nil, err
	}
	if err := c.checkPlainPins(); err != nil {
		return nil, err
	}
	return c, nil
}

func parseDimensions(v *values.Value, f *File) ([]Dimension, error) {
	dv := v.Get("dimensions")
	if dv == nil {
		return nil, &values.Error{Pos: values.Pos{File: f.Path, Line: 1, Col: 1}, Msg: "missing key dimensions",
			Hint: "list the hierarchy's levels, outermost first: dimensions: [environments, sectors, regions]"}
	}
	if dv.Kind != values.List || len(dv.Items) == 0 {
		return nil, &values.Error{Pos: dv.Pos, Path: []string{"dimensions"}, Msg: "expected a non-empty list of dimension names, got " + describe(dv),
			Hint: "list the hierarchy's levels, outermost first: dimensions: [environments, sectors, regions]"}
	}
	var dims []Dimension
	seen := map[string]bool{}
	for i, it := range dv.Items {
		path := []string{"dimensions", fmt.Sprint(i)}
		d := Dimension{}
		switch it.Kind {
		case values.String:
			d.Name = it.Text
		case values.Map:
			if err := knownKeys(it, path, "name", "singular"); err != nil {
				return nil, err
			}
			d.Name = stringAt(it, "name")
			d.Singular = stringAt(it, "singular")
		default:
			return nil, values.TypeError(it, path, values.String)
		}
		if err := checkName(d.Name); err != nil {
			return nil, nameError(it.Pos, path, err)
		}
		if d.Singular == "" {
			d.Singular = singular(d.Name)
		}
		if seen[d.Name] {
			return nil, values.Errorf(it.Pos, path, "dimension %q is declared twice", d.Name)
		}
		seen[d.Name] = true
		dims = append(dims, d)
	}
	return dims, nil
}

// parseNodes reads the list of child nodes of parent from the mapping m, which
// holds the next dimension's key.
func (c *Config) parseNodes(parent *Node, m *values.Value, path []string) error {
	dim := c.Dimensions[parent.Depth]
	list := m.Get(dim.Name)
	if list == nil {
		if parent.Depth == 0 {
			if len(m.Keys) == 0 {
				return nil
			}
			return &values.Error{Pos: m.Pos, Path: path, Msg: fmt.Sprintf("expected key %s (the first dimension), found %s", dim.Name, choices(m.Keys))}
		}
		return &values.Error{Pos: m.Pos, Path: path,
			Msg:  fmt.Sprintf("node %q has no %s", parent.ID(), dim.Name),
			Hint: fmt.Sprintf("every node above the last dimension must list its %s; targets are full-depth paths", dim.Name)}
	}
	lpath := append(path[:len(path):len(path)], dim.Name)
	if list.Kind != values.List {
		e := values.TypeError(list, lpath, values.List)
		e.Hint = fmt.Sprintf("%s lists its nodes in rollout order: %s: [{name: ...}, ...]", dim.Name, dim.Name)
		return e
	}
	if len(list.Items) == 0 {
		return &values.Error{Pos: list.Pos, Path: lpath, Msg: "empty list", Hint: "list at least one " + dim.Singular}
	}
	for i, it := range list.Items {
		ipath := append(lpath[:len(lpath):len(lpath)], fmt.Sprint(i))
		n := &Node{Depth: parent.Depth + 1, Parent: parent, Pos: it.Pos}
		last := n.Depth == len(c.Dimensions)
		switch it.Kind {
		case values.String:
			n.Name = it.Text
			if !last {
				return &values.Error{Pos: it.Pos, Path: ipath,
					Msg:  fmt.Sprintf("node %q has no %s", it.Text, c.Dimensions[n.Depth].Name),
					Hint: fmt.Sprintf("write it as {name: %s, %s: [...]}", it.Text, c.Dimensions[n.Depth].Name)}
			}
		case values.Map:
			allowed := []string{"name", "promotion", "revision", "revisions", "rollout", "values"}
			if !last {
				allowed = append(allowed, c.Dimensions[n.Depth].Name)
			}
			if err := knownKeys(it, ipath, allowed...); err != nil {
				return err
			}
			nv := it.Get("name")
			if nv == nil || nv.Kind != values.String {
				if nv == nil {
					return values.Errorf(it.Pos, ipath, "missing key name")
				}
				return values.TypeError(nv, append(ipath, "name"), values.String)
			}
			n.Name = nv.Text
			if err := c.parseNodeOptions(n, it, ipath); err != nil {
				return err
			}
			if !last {
				if err := c.parseNodes(n, it, ipath); err != nil {
					return err
				}
			}
		default:
			return values.TypeError(it, ipath, values.Map)
		}
		if err := checkName(n.Name); err != nil {
			return nameError(it.Pos, ipath, err)
		}
		if prev := siblingNamed(parent, n.Name); prev != nil {
			where := "in the sequence"
			if parent.Depth > 0 {
				where = fmt.Sprintf("under %q", parent.ID())
			}
			msg := fmt.Sprintf("%s %q appears twice %s", dim.Singular, n.Name, where)
			if prev.Name != n.Name {
				msg = fmt.Sprintf("%s %q and %q differ only in case %s (one directory on macOS and Windows)", dim.Singular, prev.Name, n.Name, where)
			}
			return &values.Error{Pos: it.Pos, Path: ipath, Msg: msg, Also: []values.Pos{prev.Pos},
				Hint: fmt.Sprintf("names of sibling nodes are unique (each is a directory under rendered/): rename or remove one %s", dim.Singular)}
		}
		parent.Children = append(parent.Children, n)
	}
	return nil
}

// siblingNamed returns the child of parent whose name is name in any case:
// file systems that ignore case would hold both in one directory.
func siblingNamed(parent *Node, name string) *Node {
	for _, c := range parent.Children {
		if strings.EqualFold(c.Name, name) {
			return c
		}
	}
	return nil
}

func (c *Config) parseNodeOptions(n *Node, m *values.Value, path []string) error {
	if g := m.Get("promotion"); g != nil {
		if g.Kind != values.String || (g.Text != GateManual && g.Text != GateAutomated) {
			e := &values.Error{Pos: g.Pos, Path: append(path[:len(path):len(path)], "promotion"),
				Msg:  fmt.Sprintf("expected manual or automated, got %s", describe(g)),
				Hint: "promotion: manual makes a gate that strata promote passes only with --approve; automated has none"}
			if s := closest(g.Text, []string{GateManual, GateAutomated}); s != "" && g.Kind == values.String {
				e.Hint = fmt.Sprintf("did you mean %q? ", s) + e.Hint
			}
			return e
		}
		n.Gate = g.Text
	}
	if r := m.Get("revision"); r != nil {
		rev, err := c.parseRevision(r, append(path, "revision"))
		if err != nil {
			return err
		}
		n.Revision = rev
	}
	if r := m.Get("rollout"); r != nil {
		s, err := parseRollout(r, append(path[:len(path):len(path)], "rollout"))
		if err != nil {
			return err
		}
		n.Rollout = s
	}
	if r := m.Get("revisions"); r != nil {
		if err := c.parseNodeRevisions(n, r, append(path[:len(path):len(path)], "revisions")); err != nil {
			return err
		}
	}
	if v := m.Get("values"); v != nil {
		nv, err := c.parseNodeValues(v, append(path[:len(path):len(path)], "values"))
		if err != nil {
			return err
		}
		n.Values = nv
	}
	return nil
}

func (c *Config) parseRevision(r *values.Value, path []string) (*Revision, error) {
	rev := &Revision{Pos: r.Pos}
	check := func(v *values.Value, path []string) (string, error) {
		if v.Kind != values.String && v.Kind != values.Int {
			return "", &values.Error{Pos: v.Pos, Path: path, Msg: "expected a revision, got " + describe(v),
				Hint: "a commit hash, a tag or a branch name, quoted if YAML would read it as another type"}
		}
		if v.Kind == values.Int {
			// 0123456 (a short hash) is an octal number to YAML 1.1: its
			// text is no longer the hash.
			if raw := c.File.Token(v.Pos); raw != v.Text {
				return "", &values.Error{Pos: v.Pos, Path: path, Msg: fmt.Sprintf("YAML reads %s as the number %s", raw, v.Text),
					Hint: fmt.Sprintf("quote the revision: '%s'", raw)}
			}
		}
		if err := CheckRevision(v.Text); err != nil {
			return "", values.Errorf(v.Pos, path, "%v", err)
		}
		return v.Text, nil
	}
	var err error
	switch r.Kind {
	case values.Map:
		rev.ByType = map[string]string{}
		for i, k := range r.Keys {
			if rev.ByType[k], err = check(r.Vals[i], append(path[:len(path):len(path)], k)); err != nil {
				return nil, err
			}
		}
	case values.String, values.Int:
		if rev.All, err = check(r, path); err != nil {
			return nil, err
		}
	default:
		return nil, &values.Error{Pos: r.Pos, Path: path, Msg: "revision must be a string or a mapping of cluster type to revision, got " + describe(r)}
	}
	return rev, nil
}

func (c *Config) parseClusterTypes(v *values.Value, f *File) ([]ClusterTypeDecl, error) {
	ctv := v.Get("cluster_types")
	if ctv == nil {
		return nil, &values.Error{Pos: values.Pos{File: f.Path, Line: 1, Col: 1}, Msg: "missing key cluster_types",
			Hint: "declare the cluster types: cluster_types: [{name: management-cluster}]"}
	}
	if ctv.Kind != values.List {
		return nil, values.TypeError(ctv, []string{"cluster_types"}, values.List)
	}
	var out []ClusterTypeDecl
	for i, it := range ctv.Items {
		path := []string{"cluster_types", fmt.Sprint(i)}
		name := ""
		var at []*Node
		var atPos, projectPos values.Pos
		project := ""
		switch it.Kind {
		case values.String:
			name = it.Text
		case values.Map:
			if err := knownKeys(it, path, "name", "at", "project"); err != nil {
				return nil, err
			}
			name = stringAt(it, "name")
			var err error
			if project, projectPos, err = parseProject(it.Get("project"), path); err != nil {
				return nil, err
			}
			if av := it.Get("at"); av != nil {
				atPos = av.Pos
				if at, err = c.parseAt(av, path); err != nil {
					return nil, err
				}
			}
		default:
			return nil, values.TypeError(it, path, values.Map)
		}
		if err := checkName(name); err != nil {
			return nil, nameError(it.Pos, path, err)
		}
		if name == "clusters" {
			return nil, values.Errorf(it.Pos, path, "cluster type %q is reserved: config/clusters/ holds the cluster inventory", name)
		}
		if slices.ContainsFunc(out, func(d ClusterTypeDecl) bool { return strings.EqualFold(d.Name, name) }) {
			return nil, values.Errorf(it.Pos, path, "cluster type %q is declared twice (names that differ only in case are one directory on macOS and Windows)", name)
		}
		out = append(out, ClusterTypeDecl{Name: name, Pos: it.Pos, At: at, AtPos: atPos, Project: project, ProjectPos: projectPos})
	}
	return out, nil
}

func (c *Config) parsePromotion(p *values.Value) error {
	if p == nil {
		return nil
	}
	path := []string{"promotion"}
	if p.Kind != values.Map {
		return values.TypeError(p, path, values.Map)
	}
	if err := knownKeys(p, path, "level"); err != nil {
		return err
	}
	if lv := p.Get("level"); lv != nil {
		if lv.Kind != values.String || c.DimensionIndex(lv.Text) < 0 {
			return &values.Error{Pos: lv.Pos, Path: append(path, "level"), Msg: fmt.Sprintf("unknown dimension %q", lv.Text),
				Hint: "one of: " + choices(c.dimensionNames())}
		}
		c.PromotionLevel = c.Dimensions[c.DimensionIndex(lv.Text)].Name
	}
	return nil
}

func (c *Config) parseRepository(r *values.Value) error {
	if r == nil {
		return nil
	}
	path := []string{"repository"}
	if r.Kind != values.Map {
		return values.TypeError(r, path, values.Map)
	}
	if err := knownKeys(r, path, "url", "revision"); err != nil {
		return err
	}
	c.Repository = &Repository{URL: stringAt(r, "url"), Revision: stringAt(r, "revision")}
	if c.Repository.URL == "" {
		return values.Errorf(r.Pos, path, "missing key url")
	}
	if c.Repository.Revision == "" {
		c.Repository.Revision = "HEAD"
	} else if err := CheckRevision(c.Repository.Revision); err != nil {
		return values.Errorf(r.Get("revision").Pos, append(path, "revision"), "%v", err)
	}
	return nil
}

func (c *Config) dimensionNames() []string {
	var out []string
	for _, d := range c.Dimensions {
		out = append(out, d.Name)
	}
	return out
}

// knownKeys reports the first key of m that is not in allowed.
func knownKeys(m *values.Value, path []string, allowed ...string) error {
	for i, k := range m.Keys {
		if !slices.Contains(allowed, k) {
			e := &values.Error{Pos: m.KeyPosAt(i), Path: append(path[:len(path):len(path)], k), Msg: "unknown key"}
			if s := closest(k, allowed); s != "" {
				e.Hint = fmt.Sprintf("did you mean %q? (allowed: %s)", s, choices(allowed))
			} else {
				e.Hint = "allowed: " + choices(allowed)
			}
			return e
		}
	}
	return nil
}

func stringAt(m *values.Value, key string) string {
	if v := m.Get(key); v != nil && v.Kind != values.Map && v.Kind != values.List && v.Kind != values.Null {
		return v.Text
	}
	return ""
}

// describe spells a value for messages: a scalar quoted, else its kind.
func describe(v *values.Value) string {
	switch v.Kind {
	case values.String:
		return fmt.Sprintf("%q", v.Text)
	case values.Bool, values.Int, values.Float:
		return v.Text
	case values.List, values.Map:
		if v.Len() == 0 {
			return "an empty " + v.Kind.String()
		}
	}
	return values.Article(v.Kind)
}
