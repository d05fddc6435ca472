package fleet

import (
	"fmt"
	"slices"

	"github.com/strata-fleet/strata/internal/values"
)

// Named revisions: several revisions per cluster, as configuration
// (docs/facts.md). A node's revision: is the root's (the rendered tree its
// clusters deploy); config.yaml's revisions: names others, which templates
// read as .Values.cluster.revisions.<name>:
//
//	revisions:
//	  charts: {}                                 # pinned per node; else the root's revision
//	  components: {default: stable}              # the root at ops-stable, components at stable
//	  addons: {label: addons_release, default: main}   # chosen per cluster by an inventory label
//	sequence:
//	  environments:
//	    - name: staging
//	      revisions: {charts: 826fa76d08fc2ce87c863196e52d5a4fa9259a82}
//
// The revision called name of the target of cluster type ct under node n is,
// first found: the label's value on the target's clusters (when the
// revision has a label and they set it; they must agree), the nearest
// node's revisions.<name> (one for every cluster type, or a mapping of
// cluster type to revision, as revision:), the revision's default, the
// target's own revision (Fleet.Revision), HEAD.

// NamedRevision is one entry of config.yaml's revisions:.
type NamedRevision struct {
	Name string
	// Default is the revision where nothing else sets one ("" for the
	// target's own revision).
	Default    string
	DefaultPos values.Pos
	// Label, when set, is the inventory label whose value on a target's
	// clusters is the revision.
	Label string
	Pos   values.Pos
}

// Revisions returns config.yaml's named revision called name, or nil.
func (c *Config) NamedRevision(name string) *NamedRevision {
	i := slices.IndexFunc(c.Revisions, func(r NamedRevision) bool { return r.Name == name })
	if i < 0 {
		return nil
	}
	return &c.Revisions[i]
}

func (c *Config) revisionNames() []string {
	out := make([]string, len(c.Revisions))
	for i, r := range c.Revisions {
		out[i] = r.Name
	}
	return out
}

func (c *Config) parseRevisions(v *values.Value) error {
	if v == nil || v.Kind == values.Null {
		return nil
	}
	path := []string{"revisions"}
	if v.Kind != values.Map {
		e := values.TypeError(v, path, values.Map)
		e.Hint = "revisions: names the revisions besides the root's: revisions: {charts: {}, addons: {label: addons_release, default: main}}"
		return e
	}
	for i, name := range v.Keys {
		rv := v.Vals[i]
		rpath := append(path[:1:1], name)
		if err := checkName(name); err != nil {
			return nameError(v.KeyPosAt(i), rpath, err)
		}
		if why, ok := reservedRevisionNames[name]; ok {
			return &values.Error{Pos: v.KeyPosAt(i), Path: rpath, Msg: fmt.Sprintf("a named revision cannot be called %q: status, pin and verify print that name for %s", name, why),
				Hint: "give the revision another name (charts, components, addons)"}
		}
		r := NamedRevision{Name: name, Pos: v.KeyPosAt(i)}
		switch rv.Kind {
		case values.Null:
		case values.Map:
			if err := knownKeys(rv, rpath, "default", "label"); err != nil {
				return err
			}
			if d := rv.Get("default"); d != nil {
				rev, err := c.parseRevision(d, append(rpath[:2:2], "default"))
				if err != nil {
					return err
				}
				if rev.All == "" {
					return values.Errorf(d.Pos, append(rpath[:2:2], "default"), "a default is one revision, not one per cluster type (pin per cluster type on a node)")
				}
				r.Default, r.DefaultPos = rev.All, d.Pos
			}
			if l := rv.Get("label"); l != nil {
				if l.Kind != values.String || l.Text == "" {
					return values.TypeError(l, append(rpath[:2:2], "label"), values.String)
				}
				r.Label = l.Text
			}
		default:
			e := values.TypeError(rv, rpath, values.Map)
			e.Hint = "each named revision is a mapping, {} when it needs no default or label"
			return e
		}
		c.Revisions = append(c.Revisions, r)
	}
	return nil
}

// parseNodeRevisions reads a node's revisions: mapping of named revision
// to pin.
func (c *Config) parseNodeRevisions(n *Node, v *values.Value, path []string) error {
	if v.Kind != values.Map {
		e := values.TypeError(v, path, values.Map)
		e.Hint = "revisions: pins named revisions of config.yaml's revisions: {charts: <revision>}"
		return e
	}
	n.Revisions = map[string]*Revision{}
	for i, name := range v.Keys {
		if c.NamedRevision(name) == nil {
			e := &values.Error{Pos: v.KeyPosAt(i), Path: append(path[:len(path):len(path)], name),
				Msg: fmt.Sprintf("unknown named revision %q", name)}
			if len(c.Revisions) == 0 {
				e.Hint = fmt.Sprintf("declare it in %s: revisions: {%s: {}}", ConfigPath, name)
			} else {
				e.Hint = didYouMean(name, c.revisionNames()) + fmt.Sprintf(" (declare it under revisions: in %s)", ConfigPath)
			}
			return e
		}
		rev, err := c.parseRevision(v.Vals[i], append(path[:len(path):len(path)], name))
		if err != nil {
			return err
		}
		n.Revisions[name] = rev
	}
	return nil
}

// labelRevisions reports whether a named revision is chosen by a label.
func (c *Config) labelRevisions() bool {
	return slices.ContainsFunc(c.Revisions, func(r NamedRevision) bool { return r.Label != "" })
}

// RevisionOf returns the named revision name of the target of cluster type
// ct under n, and where it was set.
func (f *Fleet) RevisionOf(ct string, n *Node, name string) (string, values.Pos) {
	r := f.Config.NamedRevision(name)
	if r == nil {
		return "", values.Pos{}
	}
	if r.Label != "" {
		for _, c := range f.ClustersAt(ct, n) {
			if v, ok := c.Labels[r.Label]; ok {
				return v, c.value("labels").Get(r.Label).Pos
			}
		}
	}
	for p := n; p != nil; p = p.Parent {
		if rev := p.Revisions[name].For(ct); rev != "" {
			return rev, p.Revisions[name].Pos
		}
	}
	if r.Default != "" {
		return r.Default, r.DefaultPos
	}
	if rev := f.Revision(ct, n); rev != "" {
		return rev, values.Pos{File: ConfigPath}
	}
	return "HEAD", values.Pos{File: ConfigPath}
}

// RootRevisionName names the root's revision (a node's revision:) among a
// target's revisions by name.
const RootRevisionName = "root"

// reservedRevisionNames are the names a named revision cannot have: status,
// pin and verify print them for other revisions.
var reservedRevisionNames = map[string]string{
	RootRevisionName:   "the root's revision (a node's revision:)",
	RevisionAnnotation: "the branch that the cluster Secret's annotation git_revision holds",
}

// RevisionByName is one revision a target runs, by name: the root's
// (RootRevisionName) or one of config.yaml's revisions:.
type RevisionByName struct {
	Name     string `json:"name"`
	Revision string `json:"revision"`
}

// RevisionsByName returns the revisions the target of cluster type ct
// under n runs, by name: the root's (HEAD where nothing pins it), then
// config.yaml's named revisions in their order; nil when config.yaml names
// none (the root's is then the only one, as every command shows it).
func (f *Fleet) RevisionsByName(ct string, n *Node) []RevisionByName {
	if len(f.Config.Revisions) == 0 {
		return nil
	}
	root := f.Revision(ct, n)
	if root == "" {
		root = "HEAD"
	}
	out := []RevisionByName{{Name: RootRevisionName, Revision: root}}
	for _, r := range f.Config.Revisions {
		rev, _ := f.RevisionOf(ct, n, r.Name)
		out = append(out, RevisionByName{Name: r.Name, Revision: rev})
	}
	return out
}

// revisionsBlock returns cluster.revisions of the target of type ct under
// n, or nil when config.yaml names no revision.
func (f *Fleet) revisionsBlock(ct string, n *Node) *values.Value {
	if len(f.Config.Revisions) == 0 {
		return nil
	}
	out := values.NewMap(values.Pos{File: ConfigPath})
	for _, r := range f.Config.Revisions {
		rev, pos := f.RevisionOf(ct, n, r.Name)
		out.Set(r.Name, values.NewString(rev, pos))
	}
	return out
}

// checkLabelRevisions checks the inventory's labels that choose named
// revisions: each a valid revision, the clusters of one target agreeing.
func (f *Fleet) checkLabelRevisions() []error {
	if !f.Config.labelRevisions() {
		return nil
	}
	var errs []error
	for _, r := range f.Config.Revisions {
		if r.Label == "" {
			continue
		}
		first := map[string]*Cluster{} // type + target -> first cluster with the label
		for _, c := range f.Clusters {
			v, ok := c.Labels[r.Label]
			if !ok {
				continue
			}
			pos := c.value("labels").Get(r.Label).Pos
			if err := CheckRevision(v); err != nil {
				errs = append(errs, &values.Error{Pos: pos, Path: []string{"labels", r.Label}, Msg: err.Error(),
					Hint: fmt.Sprintf("label %s chooses the cluster's revision %s (revisions.%s.label in %s)", r.Label, r.Name, r.Name, ConfigPath)})
				continue
			}
			k := c.Type + "\x00" + c.Target.ID()
			prev := first[k]
			if prev == nil {
				first[k] = c
				continue
			}
			if pv := prev.Labels[r.Label]; pv != v {
				errs = append(errs, &values.Error{Pos: pos, Path: []string{"labels", r.Label},
					Msg:  fmt.Sprintf("clusters %s and %s run target %s/%s but their label %s chooses revisions %s and %s", prev.Name, c.Name, c.Type, c.Target.ID(), r.Label, pv, v),
					Also: []values.Pos{prev.value("labels").Get(r.Label).Pos},
					Hint: "one target renders one tree for all its clusters: give them the same label, or separate targets"})
			}
		}
	}
	return errs
}
