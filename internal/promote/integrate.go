package promote

import (
	"bytes"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/values"
	"github.com/strata-fleet/strata/internal/yamledit"
)

// integrate returns the new content of values.yaml with the patch's content
// merged in by the merge rules. It edits the text in place (splice.go) so
// that comments, key order, quoting and layout stay as they are: a changed
// scalar takes the patch's token in its line (the line's comment kept); a
// value the patch replaces whole (a list, a change of kind) takes the
// patch's own lines; a mapping merged into a flow mapping is re-encoded in
// its style; a new key goes at the end of its mapping, with the patch's
// lines; a mapping merged into an alias becomes a merge key and the patch's
// entries (overAlias), so the anchored mapping that other aliases share is
// untouched. The result is checked to decode to the merged values; if the
// text cannot be edited in place, the file is re-encoded from yaml.v3's
// node tree, which keeps the comments but not every detail of layout; if
// that fails too (typically: the patch changes what an anchor holds, which
// its aliases share), the fold is refused with the reason, unless the file
// is exactly what strata would write.
//
// A blank values.yaml (a component found from a chart, whose values.yaml
// is optional) becomes the patch's content.
func integrate(valuesFile *fleet.File, patchName string, patchData []byte) ([]byte, error) {
	if len(bytes.TrimSpace(valuesFile.Data)) == 0 {
		content, err := fleet.PatchContent(fleet.NewFile(patchName, patchData))
		if err != nil {
			return nil, err
		}
		return values.Encode(content), nil
	}
	old, err := valuesFile.Mapping("values.yaml")
	if err != nil {
		return nil, err
	}
	content, err := fleet.PatchContent(fleet.NewFile(patchName, patchData))
	if err != nil {
		return nil, err
	}
	want := values.Merge(old, content)
	check := func(out []byte) bool {
		got, err := values.Decode(valuesFile.Path, out)
		return err == nil && values.Equal(got, want)
	}
	if out, err := splice(valuesFile.Data, patchData); err == nil && check(out) {
		return out, nil
	}
	if out, err := reencode(valuesFile.Data, patchData); err == nil && check(out) {
		return out, nil
	}
	// Encoding the merged values loses comments, quoting and anchors:
	// only when the file has none of them is it what the file would be.
	out := values.Encode(want)
	if !bytes.Equal(values.Encode(old), valuesFile.Data) {
		return nil, cannotFold(valuesFile, patchName)
	}
	if !check(out) {
		return nil, fmt.Errorf("folding the patch into %s: the merged values do not encode faithfully", valuesFile.Path)
	}
	return out, nil
}

// cannotFold explains why a patch cannot be folded into values.yaml
// without losing what a person wrote there, at the anchor that is the
// usual cause.
func cannotFold(valuesFile *fleet.File, patchName string) *values.Error {
	e := &values.Error{Pos: values.Pos{File: valuesFile.Path},
		Msg: fmt.Sprintf("cannot fold %s into values.yaml keeping its comments, quoting and layout: the change cannot be made by editing the text in place",
			strings.TrimSuffix(patchName, ".yaml")),
		Hint: "fold it by hand: make the patch's change in values.yaml, then delete the patch's files (every target has it); strata never rewrites the file in its own style"}
	var doc yaml.Node
	if yaml.Unmarshal(valuesFile.Data, &doc) == nil {
		if n := firstAnchor(&doc); n != nil {
			e.Pos.Line, e.Pos.Col = n.Line, n.Column
			e.Msg = fmt.Sprintf("cannot fold %s into values.yaml keeping its comments, quoting and layout: it changes what the anchor &%s holds, which its aliases share",
				strings.TrimSuffix(patchName, ".yaml"), n.Anchor)
		}
	}
	return e
}

// firstAnchor returns the first node of the tree that carries an anchor.
func firstAnchor(n *yaml.Node) *yaml.Node {
	if n.Anchor != "" {
		return n
	}
	for _, c := range n.Content {
		if a := firstAnchor(c); a != nil {
			return a
		}
	}
	return nil
}

func cloneNode(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, ch := range n.Content {
		c.Content[i] = cloneNode(ch)
	}
	return &c
}

// nodeValue converts a yaml.v3 node to a value.
func nodeValue(n *yaml.Node) (*values.Value, error) {
	out, err := yaml.Marshal(n)
	if err != nil {
		return nil, err
	}
	return values.Decode("", out)
}

// reencode merges the patch into values.yaml's node tree (which keeps
// comments) and encodes it.
func reencode(src, psrc []byte) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, err
	}
	pm, err := yamledit.DocMapping(psrc)
	if err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("empty document")
	}
	mergeNodes(doc.Content[0], pm, true)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func mergeNodes(dst, src *yaml.Node, top bool) {
	for i := 0; i+1 < len(src.Content); i += 2 {
		k, v := src.Content[i], src.Content[i+1]
		if top && k.Value == "metadata" {
			continue
		}
		dk, dv := yamledit.Find(dst, k.Value)
		switch {
		case dk == nil:
			dst.Content = append(dst.Content, k, v)
		case dv.Kind == yaml.MappingNode && v.Kind == yaml.MappingNode:
			mergeNodes(dv, v, false)
		default:
			*dv = *v
		}
	}
}
