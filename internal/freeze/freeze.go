package freeze

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/suggest"
	"github.com/strata-fleet/strata/internal/values"

	"github.com/strata-fleet/strata/internal/hint"
)

// File is where the freezes are recorded.
const File = "config/freezes.yaml"

// Freeze is one freeze: a node of the sequence ("" for the whole fleet),
// who froze it, when and why.
type Freeze struct {
	Node   string    `json:"node,omitempty"`
	By     string    `json:"by"`
	At     time.Time `json:"at"`
	Reason string    `json:"reason"`
	// Pos is the entry's position in File.
	Pos values.Pos `json:"-"`
}

// Scope names what the freeze holds: "node production", "the whole fleet".
func (f Freeze) Scope() string {
	if f.Node == "" {
		return "the whole fleet"
	}
	return f.Node
}

// String says the freeze in one line.
func (f Freeze) String() string {
	return fmt.Sprintf("%s is frozen by %s since %s: %s", f.Scope(), f.By, f.At.UTC().Format(time.RFC3339), f.Reason)
}

// Covers reports whether the freeze holds a step into node ("" for a step
// that reaches every node): the node is the frozen one, under it, or above
// it (the step would reach the frozen node's targets).
func (f Freeze) Covers(node string) bool {
	if f.Node == "" || node == "" || node == f.Node {
		return true
	}
	return strings.HasPrefix(node, f.Node+"/") || strings.HasPrefix(f.Node, node+"/")
}

// Holding returns the first freeze of fs that holds a step into node, or
// nil.
func Holding(freezes []Freeze, node string) *Freeze {
	for i := range freezes {
		if freezes[i].Covers(node) {
			return &freezes[i]
		}
	}
	return nil
}

// FrozenError is a step refused because a freeze holds its node.
type FrozenError struct {
	// Node is where the step goes.
	Node   string
	Freeze Freeze
}

func (e *FrozenError) Error() string { return e.Text(nil) }

// Text is the message with the command that lifts the freeze printed by p
// (hint.Texter).
func (e *FrozenError) Text(p hint.Printer) string {
	step := "no step starts into " + e.Node
	if e.Node == "" {
		step = "no step that reaches every node (a fold into values.yaml) starts"
	}
	return hint.Textf("%s: %s (%s:%d; %s lifts it)", step, e.Freeze, File, e.Freeze.Pos.Line, e.lift()).Print(p)
}

// lift is the command that lifts the freeze.
func (e *FrozenError) lift() hint.Command {
	if e.Freeze.Node == "" {
		return hint.Strata("unfreeze")
	}
	return hint.Strata("unfreeze", e.Freeze.Node)
}

// Check returns a *FrozenError when a freeze holds a step into node.
func Check(freezes []Freeze, node string) error {
	if f := Holding(freezes, node); f != nil {
		return &FrozenError{Node: node, Freeze: *f}
	}
	return nil
}

// Read reads File from fsys (no file: no freezes) and checks its nodes
// against cfg's sequence.
func Read(fsys fs.FS, cfg *fleet.Config) ([]Freeze, error) {
	data, err := fs.ReadFile(fsys, File)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	freezes, err := Parse(File, data)
	if err != nil {
		return nil, err
	}
	return freezes, Validate(freezes, cfg)
}

// Validate checks that each freeze names a node of cfg's sequence.
func Validate(freezes []Freeze, cfg *fleet.Config) error {
	var ids []string
	cfg.Root.Walk(func(n *fleet.Node) { ids = append(ids, n.ID()) })
	for i, f := range freezes {
		if f.Node != "" && !slices.Contains(ids, f.Node) {
			e := &values.Error{Pos: f.Pos, Path: []string{"freezes", fmt.Sprint(i), "node"}, Msg: fmt.Sprintf("no node %q in the sequence", f.Node)}
			if s := suggest.Closest(f.Node, ids, len(f.Node)/3+1); s != "" {
				e.Hint = fmt.Sprintf("did you mean %q?", s)
			}
			return e
		}
	}
	return nil
}

// Parse reads the freezes of file's data.
func Parse(file string, data []byte) ([]Freeze, error) {
	doc, err := values.Decode(file, data)
	if err != nil {
		return nil, err
	}
	if doc.Kind == values.Null {
		return nil, nil
	}
	if doc.Kind != values.Map {
		return nil, values.TypeError(doc, nil, values.Map)
	}
	if err := known(doc, nil, "freezes"); err != nil {
		return nil, err
	}
	list := doc.Get("freezes")
	if list == nil || list.Kind == values.Null {
		return nil, nil
	}
	path := []string{"freezes"}
	if list.Kind != values.List {
		e := values.TypeError(list, path, values.List)
		e.Hint = "freezes: [{node: production, by: Name <email>, at: 2026-01-02T15:04:05Z, reason: why}]"
		return nil, e
	}
	var out []Freeze
	for i, it := range list.Items {
		f, err := parseEntry(it, append(path, fmt.Sprint(i)))
		if err != nil {
			return nil, err
		}
		if prev := slices.IndexFunc(out, func(p Freeze) bool { return p.Node == f.Node }); prev >= 0 {
			return nil, &values.Error{Pos: f.Pos, Path: append(path, fmt.Sprint(i)), Msg: fmt.Sprintf("%s is frozen twice", f.Scope()), Also: []values.Pos{out[prev].Pos}}
		}
		out = append(out, f)
	}
	return out, nil
}

func parseEntry(v *values.Value, path []string) (Freeze, error) {
	f := Freeze{Pos: v.Pos}
	if v.Kind != values.Map {
		return f, values.TypeError(v, path, values.Map)
	}
	if err := known(v, path, "node", "by", "at", "reason"); err != nil {
		return f, err
	}
	str := func(key string, required bool) (string, error) {
		s := v.Get(key)
		if s == nil && !required {
			return "", nil
		}
		if s == nil {
			return "", &values.Error{Pos: v.Pos, Path: path, Msg: "missing key " + key}
		}
		if s.Kind != values.String || strings.TrimSpace(s.Text) == "" {
			return "", &values.Error{Pos: s.Pos, Path: append(path[:len(path):len(path)], key), Msg: "expected a non-empty string, got " + values.Article(s.Kind)}
		}
		return s.Text, nil
	}
	var err error
	if f.Node, err = str("node", false); err != nil {
		return f, err
	}
	f.Node = strings.Trim(f.Node, "/")
	if f.By, err = str("by", true); err != nil {
		return f, err
	}
	if f.Reason, err = str("reason", true); err != nil {
		return f, err
	}
	at, err := str("at", true)
	if err != nil {
		return f, err
	}
	if f.At, err = time.Parse(time.RFC3339, at); err != nil {
		return f, &values.Error{Pos: v.Get("at").Pos, Path: append(path, "at"), Msg: fmt.Sprintf("%q is not a time", at),
			Hint: "RFC 3339, as strata freeze writes it: 2026-01-02T15:04:05Z"}
	}
	return f, nil
}

func known(m *values.Value, path []string, allowed ...string) error {
	for i, k := range m.Keys {
		if !slices.Contains(allowed, k) {
			return &values.Error{Pos: m.KeyPosAt(i), Path: append(path[:len(path):len(path)], k), Msg: "unknown key",
				Hint: "allowed: " + strings.Join(allowed, ", ")}
		}
	}
	return nil
}

// Guard reads the freezes of fsys and returns a *FrozenError when one
// holds a step into node ("" for a step that reaches every node, a fold
// into values.yaml): the one call promote and rollout make before a step.
func Guard(fsys fs.FS, cfg *fleet.Config, node string) error {
	freezes, err := Read(fsys, cfg)
	if err != nil {
		return err
	}
	return Check(freezes, node)
}
