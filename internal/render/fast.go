package render

import (
	"strings"

	"github.com/strata-fleet/strata/internal/memo"
	"github.com/strata-fleet/strata/internal/values"
)

// Rendering a fleet evaluates the same value subtrees again and again: most
// components have the same values in most targets. These make that cheap
// without changing any output:
//
//   - Values.Shared converts each immutable value node to Go maps once, so
//     equal subtrees of different targets are the same Go objects;
//   - the built-in chart renders only the items it has not rendered before
//     (items.go), those of a window of targets together (warm.go);
//   - pass 2 runs only the template actions, on documents decoded once per
//     distinct pass-1 text (holes.go), and takes the references to string
//     values among them from the values (direct.go);
//   - other rendered documents are decoded and re-encoded once per
//     distinct text.
//
// Sharing objects between targets is only sound when templates cannot
// modify them: guard.go makes sure they cannot.
//
// Renderer.NoShortcuts turns all of this off (fresh values per render,
// Helm's own functions, the whole chart, pass 2 and decoding on the whole
// text), for the tests that compare the two ways byte for byte.

// splitDocuments splits a stream of YAML documents at its "---" lines.
func splitDocuments(text string) []string {
	var out []string
	for len(text) > 0 {
		var doc string
		if i := strings.Index(text, "\n---\n"); i >= 0 {
			doc, text = text[:i+1], text[i+5:]
		} else {
			doc, text = text, ""
		}
		doc = strings.TrimPrefix(doc, "---\n")
		if strings.TrimSpace(doc) != "" {
			out = append(out, doc)
		}
	}
	return out
}

// docCache holds each distinct rendered document, decoded and encoded once,
// while targets use it (package memo). It keeps the encoded text and the few
// fields a target needs, not the decoded tree: rendered fleets have
// thousands of distinct documents.
type docCache struct {
	m memo.Table[string, []renderedDoc]
}

// renderedDoc is a rendered resource: its encoded text and name.
type renderedDoc struct {
	data     []byte
	name     string
	nameKind values.Kind // values.Null when metadata.name is missing
}

// decode returns the documents of a rendered stream.
func (c *docCache) decode(file, text string) ([]renderedDoc, error) {
	var out []renderedDoc
	for _, part := range splitDocuments(text) {
		docs, ok := c.m.Get(part)
		if !ok {
			vs, err := values.DecodeAll(file, []byte(part))
			if err != nil {
				return nil, err
			}
			docs = make([]renderedDoc, 0, len(vs))
			for _, v := range vs {
				d := renderedDoc{data: values.Encode(v), nameKind: values.Null}
				if n := v.Lookup("metadata", "name"); n != nil {
					d.name, d.nameKind = n.Text, n.Kind
				}
				docs = append(docs, d)
			}
			c.m.Put(strings.Clone(part), docs) // not the whole stream part is cut from
		}
		out = append(out, docs...)
	}
	return out, nil
}
