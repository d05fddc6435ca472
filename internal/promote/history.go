package promote

import (
	"bytes"
	"fmt"
	"path"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/values"
)

// Fold is one entry of a component's history file (fleet.HistoryFile,
// next to its values.yaml): a patch folded into values.yaml, with what its
// metadata said, so that the fold, which removes the patch's files, does
// not lose who changed what, why, and who let it through the gates. The
// loader never reads the file to render (a target's output does not depend
// on it) and it is not checked against values; promote appends to it, and
// refuses a file it cannot append to (not a mapping with a folds list).
type Fold struct {
	Patch       string     `yaml:"patch"`
	Folded      string     `yaml:"folded"` // RFC 3339, UTC
	Description string     `yaml:"description,omitempty"`
	Owner       string     `yaml:"owner,omitempty"`
	Ticket      string     `yaml:"ticket,omitempty"`
	Created     string     `yaml:"created,omitempty"`
	Approvals   []foldGate `yaml:"approvals,omitempty"`
}

type foldGate struct {
	Node string `yaml:"node"`
	By   string `yaml:"by"`
	At   string `yaml:"at"`
}

const historyHeader = `# Patches folded into values.yaml, oldest first: what each said of itself
# (description, owner, ticket) and who approved its gates. Written by
# strata promote when it folds a patch; strata never reads it to render.
folds:
`

// historyOp is the write that appends the fold of p (meta, at now) to the
// component's history file.
func historyOp(c *fleet.Component, p *Plan, now time.Time) (Op, error) {
	name := path.Join(c.Dir, fleet.HistoryFile)
	if now.IsZero() {
		now = time.Now()
	}
	f := Fold{Patch: p.Patch, Folded: now.UTC().Truncate(time.Second).Format(time.RFC3339)}
	if m := p.Meta; m != nil {
		f.Description, f.Owner, f.Ticket, f.Created = m.Description, m.Owner, m.Ticket, m.Created
		for _, a := range m.Approvals {
			f.Approvals = append(f.Approvals, foldGate{Node: a.Node, By: a.By, At: a.At.UTC().Format(time.RFC3339)})
		}
	}
	var item bytes.Buffer
	enc := yaml.NewEncoder(&item)
	enc.SetIndent(2)
	if err := enc.Encode([]Fold{f}); err != nil {
		return Op{}, err
	}
	indent := func(n int) string {
		pad := strings.Repeat(" ", n)
		return pad + strings.ReplaceAll(strings.TrimSuffix(item.String(), "\n"), "\n", "\n"+pad) + "\n"
	}
	if c.History == nil {
		return Op{Kind: "write", Path: name, Data: []byte(historyHeader + indent(2))}, nil
	}
	folds, col, err := readHistory(c.History)
	if err != nil {
		return Op{}, err
	}
	data := append([]byte{}, c.History.Data...)
	if len(data) > 0 && data[len(data)-1] != '\n' {
		data = append(data, '\n')
	}
	data = append(data, indent(col)...)
	if n, _, err := readHistory(fleet.NewFile(name, data)); err != nil || n != folds+1 {
		return Op{}, &values.Error{Pos: values.Pos{File: name}, Msg: "cannot append the fold of " + p.Patch + " to the history",
			Hint: "the history of folded patches is a mapping with one key, folds: a block list that ends the file"}
	}
	return Op{Kind: "write", Path: name, Data: data, Was: digest(c.History.Data)}, nil
}

// readHistory reads a history file that appending an item to its end
// extends: a mapping with one key, folds, a block list (or nothing yet).
// It returns the number of folds and the indentation of their items.
func readHistory(file *fleet.File) (folds, indent int, err error) {
	var doc yaml.Node
	bad := func(line, col int, msg string) (int, int, error) {
		return 0, 0, &values.Error{Pos: values.Pos{File: file.Path, Line: line, Col: col}, Msg: msg,
			Hint: "the history of folded patches is a mapping with one key, folds: a list that strata promote appends to; fix it or move it away"}
	}
	if err := yaml.Unmarshal(file.Data, &doc); err != nil {
		return bad(0, 0, fmt.Sprintf("not YAML: %v", err))
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return bad(1, 1, "expected a mapping with a folds list")
	}
	m := doc.Content[0]
	if len(m.Content) != 2 || m.Content[0].Value != "folds" {
		return bad(m.Line, m.Column, "expected one key, folds")
	}
	switch l := m.Content[1]; {
	case l.Kind == yaml.ScalarNode && l.Tag == "!!null":
		return 0, 2, nil
	case l.Kind != yaml.SequenceNode || l.Style&yaml.FlowStyle != 0:
		return bad(l.Line, l.Column, "folds: expected a block list")
	case len(l.Content) == 0:
		return 0, 2, nil
	default:
		return len(l.Content), l.Content[0].Column - 3, nil
	}
}

// FoldedAt is when history.yaml says patch was folded into values.yaml,
// or "" (no history, no such entry, a history that does not decode).
func FoldedAt(c *fleet.Component, patch string) string {
	at := ""
	for _, f := range Folds(c) {
		if f.Patch == patch {
			at = f.Folded
		}
	}
	return at
}

// Folds are the folds c's history.yaml records, oldest first, with their
// patch and time only; nil without a history or for one that does not
// decode.
func Folds(c *fleet.Component) []Fold {
	if c.History == nil {
		return nil
	}
	var h struct {
		Folds []struct{ Patch, Folded string }
	}
	if yaml.Unmarshal(c.History.Data, &h) != nil {
		return nil
	}
	out := make([]Fold, len(h.Folds))
	for i, f := range h.Folds {
		out[i] = Fold{Patch: f.Patch, Folded: f.Folded}
	}
	return out
}

// foldedPatches are the patches the component's history says were folded,
// oldest first; a history that is not the list promote writes is an error
// naming it.
func foldedPatches(c *fleet.Component) ([]string, error) {
	if c.History == nil {
		return nil, nil
	}
	if _, _, err := readHistory(c.History); err != nil {
		return nil, err
	}
	var h struct {
		Folds []struct{ Patch string }
	}
	if err := yaml.Unmarshal(c.History.Data, &h); err != nil {
		return nil, &values.Error{Pos: values.Pos{File: c.History.Path}, Msg: fmt.Sprintf("cannot read the folded patches: %v", err)}
	}
	names := make([]string, 0, len(h.Folds))
	for _, f := range h.Folds {
		names = append(names, f.Patch)
	}
	return names, nil
}
