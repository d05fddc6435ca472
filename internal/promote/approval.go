package promote

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/strata-fleet/strata/internal/values"
	"github.com/strata-fleet/strata/internal/yamledit"
)

// Approval is the record that someone let a patch enter a manual gate. It
// lives in the patch file's metadata (which rendering strips), so that the
// change that enters the gate carries it:
//
//	metadata:
//	  approvals:
//	    - node: production
//	      by: Jane Doe <jane@example.com>
//	      at: "2026-11-23T21:40:00Z"
//
// A commit trailer "Approved-by: Jane Doe <jane@example.com> for production"
// records the same for a change that leaves no patch file behind (see
// package verify).
type Approval struct {
	// Node is the gate: the ID of a node marked promotion: manual.
	Node string `json:"node" yaml:"node"`
	// By names who approved: "Name <email>".
	By string `json:"by" yaml:"by"`
	// At is when, in UTC (RFC 3339 in the file).
	At time.Time `json:"at" yaml:"at"`
	// Pos is where the record is, when read from a file.
	Pos values.Pos `json:"-" yaml:"-"`
}

// Approvals reads the approvals recorded in a patch file's metadata.
// Malformed records are errors that name the file and line.
func Approvals(path string, data []byte) ([]Approval, error) {
	root, err := yamledit.DocMapping(data)
	if err != nil {
		return nil, nil // not a mapping: the loader reports the file itself
	}
	_, md := yamledit.Find(root, "metadata")
	if md == nil || md.Kind != yaml.MappingNode {
		return nil, nil
	}
	_, list := yamledit.Find(md, "approvals")
	if list == nil {
		return nil, nil
	}
	at := func(n *yaml.Node) values.Pos { return values.Pos{File: path, Line: n.Line, Col: n.Column} }
	if list.Kind != yaml.SequenceNode {
		return nil, &values.Error{Pos: at(list), Path: []string{"metadata", "approvals"}, Msg: "expected a list of approvals",
			Hint: "each item: {node: <gate>, by: Name <email>, at: <RFC 3339 time>}"}
	}
	var out []Approval
	for _, item := range list.Content {
		var a struct{ Node, By, At string }
		if item.Kind != yaml.MappingNode || item.Decode(&a) != nil {
			return nil, &values.Error{Pos: at(item), Path: []string{"metadata", "approvals"}, Msg: "an approval is a mapping of strings",
				Hint: "{node: <gate>, by: Name <email>, at: <RFC 3339 time>}"}
		}
		t, err := time.Parse(time.RFC3339, a.At)
		switch {
		case a.Node == "" || a.By == "":
			return nil, &values.Error{Pos: at(item), Path: []string{"metadata", "approvals"}, Msg: "an approval names the gate (node) and who approved (by)"}
		case err != nil:
			return nil, &values.Error{Pos: at(item), Path: []string{"metadata", "approvals", "at"}, Msg: fmt.Sprintf("%q is not an RFC 3339 time", a.At),
				Hint: "like 2026-11-23T21:40:00Z"}
		}
		out = append(out, Approval{Node: a.Node, By: a.By, At: t.UTC(), Pos: at(item)})
	}
	return out, nil
}

// RecordApproval returns the patch file's text with the approval added to
// metadata.approvals. The text is edited in place, so that comments and
// layout stay; the result is checked to hold the same patch content and
// the approvals before plus this one.
func RecordApproval(data []byte, a Approval) ([]byte, error) {
	if a.Node == "" || strings.TrimSpace(a.By) == "" || a.At.IsZero() {
		return nil, fmt.Errorf("an approval names the gate, who approved and when")
	}
	before, err := Approvals("", data)
	if err != nil {
		return nil, err
	}
	a.At = a.At.UTC().Truncate(time.Second)
	for _, b := range before {
		if b.Node == a.Node && b.By == a.By && b.At.Equal(a.At) {
			return data, nil
		}
	}
	check := func(out []byte) bool {
		got, err := Approvals("", out)
		if err != nil || len(got) != len(before)+1 || !sameApproval(got[len(got)-1], a) {
			return false
		}
		x, err1 := patchValue("a", data)
		y, err2 := patchValue("b", out)
		return err1 == nil && err2 == nil && values.Equal(x, y)
	}
	if out, err := insertApproval(data, a); err == nil && check(out) {
		return out, nil
	}
	if out, err := reencodeMetadata(data, a); err == nil && check(out) {
		return out, nil
	}
	return nil, fmt.Errorf("cannot record the approval of %s in the patch's metadata: write metadata: as a block mapping", a.Node)
}

func sameApproval(x, y Approval) bool { return x.Node == y.Node && x.By == y.By && x.At.Equal(y.At) }

// approvalLines is one approval as a block list item, indented by indent.
func approvalLines(a Approval, indent int) string {
	pad := strings.Repeat(" ", indent)
	return fmt.Sprintf("%s- node: %s\n%s  by: %s\n%s  at: %q\n", pad, scalar(a.Node), pad, scalar(a.By), pad, a.At.Format(time.RFC3339))
}

// scalar is s written as a YAML scalar (quoted when it must be).
func scalar(s string) string {
	out, err := yaml.Marshal(s)
	if err != nil {
		return fmt.Sprintf("%q", s)
	}
	return strings.TrimSuffix(string(out), "\n")
}

// insertApproval adds the approval as text: after the last item of a block
// approvals list, at the end of a block metadata mapping, or as a new
// metadata block before the first key of the file.
func insertApproval(data []byte, a Approval) ([]byte, error) {
	d, err := yamledit.Parse(data)
	if err != nil {
		return nil, err
	}
	if len(d.Root.Content) == 0 || yamledit.IsFlow(d.Root) {
		return nil, fmt.Errorf("not a block mapping")
	}
	mk, md := yamledit.Find(d.Root, "metadata")
	if mk == nil {
		at := d.LineStart(d.Root.Content[0].Line)
		text := "metadata:\n  approvals:\n" + approvalLines(a, 4)
		return yamledit.Apply(data, []yamledit.Edit{{Start: at, End: at, Text: text}}), nil
	}
	if md.Kind != yaml.MappingNode || yamledit.IsFlow(md) || len(md.Content) == 0 {
		return nil, fmt.Errorf("metadata is not a block mapping")
	}
	ak, list := yamledit.Find(md, "approvals")
	var at int
	var text string
	switch {
	case ak == nil:
		at = d.LineEnd(yamledit.LastLine(md.Content[len(md.Content)-1]))
		indent := md.Content[0].Column - 1
		text = strings.Repeat(" ", indent) + "approvals:\n" + approvalLines(a, indent+2)
	case list.Kind == yaml.SequenceNode && !yamledit.IsFlow(list) && len(list.Content) > 0:
		at = d.LineEnd(yamledit.LastLine(list))
		text = approvalLines(a, list.Column-1)
	default:
		return nil, fmt.Errorf("approvals is not a block list")
	}
	if at == len(data) && len(data) > 0 && data[len(data)-1] != '\n' {
		text = "\n" + text
	}
	return yamledit.Apply(data, []yamledit.Edit{{Start: at, End: at, Text: text}}), nil
}

// reencodeMetadata rewrites the metadata entry, which must own its lines,
// from its node tree (comments kept) with the approval added.
func reencodeMetadata(data []byte, a Approval) ([]byte, error) {
	d, err := yamledit.Parse(data)
	if err != nil {
		return nil, err
	}
	mk, md := yamledit.Find(d.Root, "metadata")
	if mk == nil || md.Kind != yaml.MappingNode || yamledit.IsFlow(d.Root) || mk.Column != 1 {
		return nil, fmt.Errorf("metadata cannot be rewritten")
	}
	start, end := d.LineStart(mk.Line), d.LineEnd(yamledit.LastLine(md))
	md = cloneNode(md)
	md.Style = 0
	item := &yaml.Node{}
	if err := item.Encode(struct{ Node, By, At string }{a.Node, a.By, a.At.Format(time.RFC3339)}); err != nil {
		return nil, err
	}
	for i, k := range []string{"node", "by", "at"} {
		item.Content[2*i].Value = k
	}
	_, list := yamledit.Find(md, "approvals")
	if list == nil {
		list = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		md.Content = append(md.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "approvals"}, list)
	}
	if list.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("approvals is not a list")
	}
	list.Style = 0
	list.Content = append(list.Content, item)
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{mk, md}}); err != nil {
		return nil, err
	}
	return yamledit.Apply(data, []yamledit.Edit{{Start: start, End: end, Text: buf.String()}}), nil
}

// mergeApprovals returns data (one copy of a patch) with the approvals the
// other copies record and it lacks, so that coalescing keeps every record.
func mergeApprovals(data []byte, others ...[]byte) ([]byte, error) {
	have, err := Approvals("", data)
	if err != nil {
		return nil, err
	}
	for _, o := range others {
		more, err := Approvals("", o)
		if err != nil {
			return nil, err
		}
		for _, a := range more {
			if slices.ContainsFunc(have, func(b Approval) bool { return sameApproval(a, b) }) {
				continue
			}
			if data, err = RecordApproval(data, a); err != nil {
				return nil, err
			}
			have = append(have, a)
		}
	}
	return data, nil
}
