package pin

import (
	"bytes"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing/fstest"

	"gopkg.in/yaml.v3"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/values"
	"github.com/strata-fleet/strata/internal/yamledit"
)

// edit returns config.yaml's text with node n's revision set to want, or
// its named revision revisions.<named> when named is set.
func edit(src []byte, cfg *fleet.Config, n *fleet.Node, named string, want *fleet.Revision) ([]byte, error) {
	d, err := yamledit.Parse(src)
	if err != nil {
		return nil, err
	}
	item, inFlow, err := locate(d, cfg, n)
	if err != nil {
		return nil, err
	}
	var e yamledit.Edit
	if named != "" {
		e, err = namedEdit(d, item, inFlow, n.Name, named, want)
	} else {
		e, err = pinEdit(d, item, inFlow, n.Name, want)
	}
	if err != nil {
		return nil, err
	}
	return yamledit.Apply(src, []yamledit.Edit{e}), nil
}

// locate finds the list item of node n under sequence:, and whether it is in
// a flow list.
func locate(d *yamledit.Doc, cfg *fleet.Config, n *fleet.Node) (*yaml.Node, bool, error) {
	_, cur := yamledit.Find(d.Root, "sequence")
	var item *yaml.Node
	inFlow := false
	for i, name := range n.Path() {
		if cur == nil || cur.Kind != yaml.MappingNode {
			return nil, false, fmt.Errorf("node %s is not written as a mapping", strings.Join(n.Path()[:i], "/"))
		}
		_, list := yamledit.Find(cur, cfg.Dimensions[i].Name)
		if list == nil || list.Kind != yaml.SequenceNode {
			return nil, false, fmt.Errorf("no list of %s found", cfg.Dimensions[i].Name)
		}
		item = nil
		for _, it := range list.Content {
			switch it.Kind {
			case yaml.ScalarNode:
				if it.Value == name {
					item = it
				}
			case yaml.MappingNode:
				if _, nv := yamledit.Find(it, "name"); nv != nil && nv.Value == name {
					item = it
				}
			}
		}
		if item == nil {
			return nil, false, fmt.Errorf("node %s not found (written with aliases?)", name)
		}
		inFlow, cur = yamledit.IsFlow(list), item
	}
	return item, inFlow, nil
}

// pinEdit is the one edit that sets the revision of the node written as item.
func pinEdit(d *yamledit.Doc, item *yaml.Node, inFlow bool, name string, want *fleet.Revision) (yamledit.Edit, error) {
	if item.Kind == yaml.ScalarNode {
		// "- us-east1" becomes "- {name: us-east1, revision: ...}".
		end, err := d.ScalarEnd(item, inFlow)
		if err != nil {
			return yamledit.Edit{}, err
		}
		start := d.Start(item)
		text := fmt.Sprintf("{name: %s, revision: %s}", d.Src[start:end], revisionText(want, true))
		return yamledit.Edit{Start: start, End: end, Text: text}, nil
	}
	flow := yamledit.IsFlow(item)
	rk, rv := yamledit.Find(item, "revision")
	if rk == nil {
		nk, nv := yamledit.Find(item, "name")
		if nv == nil || !yamledit.SingleLineScalar(nv) {
			return yamledit.Edit{}, fmt.Errorf("node %s: name is not a plain scalar", name)
		}
		end, err := d.ScalarEnd(nv, flow)
		if err != nil {
			return yamledit.Edit{}, err
		}
		if flow {
			return yamledit.Edit{Start: end, End: end, Text: ", revision: " + revisionText(want, true)}, nil
		}
		at := d.LineEnd(nv.Line)
		text := strings.Repeat(" ", nk.Column-1) + "revision: " + revisionText(want, false) + "\n"
		if at == len(d.Src) && len(d.Src) > 0 && d.Src[len(d.Src)-1] != '\n' {
			text = "\n" + text
		}
		return yamledit.Edit{Start: at, End: at, Text: text}, nil
	}
	// The node has a pin: replace it, or one cluster type's entry of it.
	return replaceValue(d, rk, rv, flow, name, "revision", want)
}

// sameKeysButOne reports whether the per-type pin want differs from the
// mapping m by at most one entry, added or changed.
func sameKeysButOne(m *yaml.Node, want *fleet.Revision) bool {
	diff := 0
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i].Value, m.Content[i+1]
		w, ok := want.ByType[k]
		if !ok {
			return false
		}
		if v.Kind != yaml.ScalarNode || v.Value != w {
			diff++
		}
	}
	return diff+len(want.ByType)-len(m.Content)/2 <= 1
}

// typeEdit changes or adds the one entry of the per-type pin m that differs.
func typeEdit(d *yamledit.Doc, m *yaml.Node, want *fleet.Revision) (yamledit.Edit, error) {
	flow := yamledit.IsFlow(m)
	for i := 0; i+1 < len(m.Content); i += 2 {
		v := m.Content[i+1]
		if w := want.ByType[m.Content[i].Value]; v.Value != w {
			end, err := d.ScalarEnd(v, flow)
			if err != nil {
				return yamledit.Edit{}, err
			}
			return yamledit.Edit{Start: d.Start(v), End: end, Text: scalarText(w, flow)}, nil
		}
	}
	var added string
	for _, k := range sortedKeys(want.ByType) {
		if _, v := yamledit.Find(m, k); v == nil {
			added = k
		}
	}
	entry := scalarText(added, flow) + ": " + scalarText(want.ByType[added], flow)
	return appendEntry(d, m, flow, entry)
}

// appendEntry adds the entry "key: value" after the last of the mapping m,
// in m's style: after a comma in a flow mapping, on a line of its own at
// m's indentation in a block one.
func appendEntry(d *yamledit.Doc, m *yaml.Node, flow bool, entry string) (yamledit.Edit, error) {
	last := m.Content[len(m.Content)-1]
	if flow {
		end, err := d.ScalarEnd(last, true)
		if yamledit.IsFlow(last) {
			end, err = d.FlowEnd(last)
		}
		if err != nil {
			return yamledit.Edit{}, err
		}
		return yamledit.Edit{Start: end, End: end, Text: ", " + entry}, nil
	}
	at := d.LineEnd(yamledit.LastLine(last))
	return yamledit.Edit{Start: at, End: at, Text: strings.Repeat(" ", m.Content[0].Column-1) + entry + "\n"}, nil
}

// revisionText writes a pin as YAML: a scalar, or a flow mapping by type.
func revisionText(r *fleet.Revision, flow bool) string {
	if r.ByType == nil {
		return scalarText(r.All, flow)
	}
	var parts []string
	for _, k := range sortedKeys(r.ByType) {
		parts = append(parts, scalarText(k, true)+": "+scalarText(r.ByType[k], true))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func sortedKeys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// scalarText writes s as a YAML scalar that reads back as the string s,
// quoted where a plain scalar would be read as something else.
func scalarText(s string, flow bool) string {
	m := values.NewMap(values.Pos{})
	m.Set("k", values.NewString(s, values.Pos{}))
	text := strings.TrimSuffix(strings.TrimPrefix(string(values.Encode(m)), "k: "), "\n")
	if flow && !strings.HasPrefix(text, "'") && !strings.HasPrefix(text, `"`) && strings.ContainsAny(text, ",[]{}#") {
		text = "'" + strings.ReplaceAll(text, "'", "''") + "'"
	}
	return text
}

// reload loads the fleet again with config.yaml replaced by content.
func reload(f *fleet.Fleet, content []byte) (*fleet.Fleet, error) {
	return fleet.Load(overlay{FS: f.FS, config: content})
}

// overlay is a repository with another config.yaml.
type overlay struct {
	fs.FS
	config []byte
}

func (o overlay) Open(name string) (fs.File, error) {
	if name == fleet.ConfigPath {
		return fstest.MapFS{name: {Data: o.config}}.Open(name)
	}
	return o.FS.Open(name)
}

func (o overlay) ReadFile(name string) ([]byte, error) {
	if name == fleet.ConfigPath {
		return bytes.Clone(o.config), nil
	}
	return fs.ReadFile(o.FS, name)
}

func (o overlay) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(o.FS, name) }
func (o overlay) ReadLink(name string) (string, error)       { return fs.ReadLink(o.FS, name) }
func (o overlay) Lstat(name string) (fs.FileInfo, error)     { return fs.Lstat(o.FS, name) }
func (o overlay) Stat(name string) (fs.FileInfo, error) {
	if name == fleet.ConfigPath {
		return fstest.MapFS{name: {Data: o.config}}.Stat(name)
	}
	return fs.Stat(o.FS, name)
}

// sameExceptPin checks that the two texts of config.yaml decode to the same
// data but for node n's revision (and the form of its item: a plain name
// becomes {name: ...}).
func sameExceptPin(old, edited []byte, cfg *fleet.Config, n *fleet.Node, named string) error {
	a, err := values.Decode(fleet.ConfigPath, old)
	if err != nil {
		return err
	}
	b, err := values.Decode(fleet.ConfigPath, edited)
	if err != nil {
		return err
	}
	if !values.Equal(withoutPin(a, cfg, n, named), withoutPin(b, cfg, n, named)) {
		return fmt.Errorf("the edit changed more than the pin")
	}
	return nil
}

// withoutPin returns v with node n's item written as a mapping without
// revision.
func withoutPin(v *values.Value, cfg *fleet.Config, n *fleet.Node, named string) *values.Value {
	var rec func(m *values.Value, depth int) *values.Value
	rec = func(m *values.Value, depth int) *values.Value {
		dim := cfg.Dimensions[depth].Name
		list := m.Get(dim)
		if list == nil || list.Kind != values.List {
			return m
		}
		name := n.Path()[depth]
		nl := &values.Value{Kind: values.List, Pos: list.Pos}
		for _, it := range list.Items {
			itName := it.Text
			if it.Kind == values.Map {
				if nv := it.Get("name"); nv != nil {
					itName = nv.Text
				}
			}
			if itName == name {
				if it.Kind != values.Map {
					it = &values.Value{Kind: values.Map, Keys: []string{"name"}, Vals: []*values.Value{it}, Pos: it.Pos}
				}
				switch {
				case depth == n.Depth-1 && named != "":
					it = withoutNamed(it, named)
				case depth == n.Depth-1:
					it = it.Delete("revision")
				default:
					it = rec(it, depth+1)
				}
			}
			nl.Items = append(nl.Items, it)
		}
		out := m.Delete(dim)
		out.Set(dim, nl)
		return out
	}
	seq := v.Get("sequence")
	if seq == nil {
		return v
	}
	out := v.Delete("sequence")
	out.Set("sequence", rec(seq, 0))
	return out
}
