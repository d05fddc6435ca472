package render

import (
	"slices"
	"text/template/parse"

	"github.com/strata-fleet/strata/internal/values"
)

// guardFuncs are the template functions that take a value that may be
// missing and say what to do then: a reference given to one of them (as
// an argument or piped into it) is not a finding.
var guardFuncs = map[string]bool{
	"default": true, "required": true, "empty": true, "coalesce": true, "hasKey": true,
	"ternary": true, "or": true, "not": true, "kindIs": true, "typeIs": true, "dig": true,
}

// Reference is a template's reference to a key path from the top of the
// data Helm renders with (Values, Release...): .Values.cluster.name is
// [Values cluster name].
type Reference struct {
	Path []string
	// Guarded: a guard function takes it, or a condition tests it.
	Guarded bool
	// guards are the paths that enclosing if/with conditions test: the
	// reference is only evaluated when they are set.
	guards [][]string
}

// References returns the references of a template text to key paths from
// the top of the data, those a guard function takes (default, required,
// empty, coalesce, hasKey...) or a condition tests marked Guarded; nil when
// it does not parse (rendering reports that). Those under an if, with or
// range keep the paths the conditions test: see Missing. References in
// texts the template hands to tpl or include are not seen.
func References(text string) []Reference {
	t := parse.New("value")
	t.Mode = parse.SkipFuncCheck
	trees := map[string]*parse.Tree{}
	if _, err := t.Parse(text, "", "", trees); err != nil {
		return nil
	}
	w := &refWalker{}
	for _, tr := range trees {
		if tr.Root != nil {
			w.list(tr.Root, true, nil)
		}
	}
	return w.refs
}

type refWalker struct{ refs []Reference }

// list walks the nodes of a template body; dotIsTop says that . is the top
// of the data there (not inside with or range); guards are the paths the
// enclosing conditions test.
func (w *refWalker) list(l *parse.ListNode, dotIsTop bool, guards [][]string) {
	if l == nil {
		return
	}
	for _, n := range l.Nodes {
		switch n := n.(type) {
		case *parse.ActionNode:
			w.pipe(n.Pipe, dotIsTop, guards, false)
		case *parse.IfNode:
			tested := w.tested(n.Pipe, dotIsTop)
			w.list(n.List, dotIsTop, append(slices.Clip(guards), tested...))
			w.list(n.ElseList, dotIsTop, guards)
		case *parse.WithNode:
			tested := w.tested(n.Pipe, dotIsTop)
			w.list(n.List, false, append(slices.Clip(guards), tested...))
			w.list(n.ElseList, dotIsTop, guards)
		case *parse.RangeNode:
			tested := w.tested(n.Pipe, dotIsTop)
			w.list(n.List, false, append(slices.Clip(guards), tested...))
			w.list(n.ElseList, dotIsTop, guards)
		case *parse.TemplateNode:
			w.pipe(n.Pipe, dotIsTop, guards, false)
		}
	}
}

// tested returns the paths a condition tests (hasKey M "k" tests M.k);
// none of them is a finding.
func (w *refWalker) tested(p *parse.PipeNode, dotIsTop bool) [][]string {
	var out [][]string
	visitArgs(p, func(cmd *parse.CommandNode, arg parse.Node) {
		path := topPath(arg, dotIsTop)
		if path == nil {
			return
		}
		out = append(out, path)
		w.refs = append(w.refs, Reference{Path: path, Guarded: true})
		if fn, ok := cmd.Args[0].(*parse.IdentifierNode); ok && fn.Ident == "hasKey" && len(cmd.Args) == 3 && cmd.Args[1] == arg {
			if s, ok := cmd.Args[2].(*parse.StringNode); ok {
				out = append(out, append(slices.Clip(path), s.Text))
			}
		}
	})
	return out
}

// pipe records the references of a pipeline, unless guarded: piped into
// or given to a guard function.
func (w *refWalker) pipe(p *parse.PipeNode, dotIsTop bool, guards [][]string, guarded bool) {
	if p == nil {
		return
	}
	// A command piped into a guard function is guarded, with all before it.
	last := -1
	for i, cmd := range p.Cmds {
		if i > 0 && isGuard(cmd) {
			last = i
		}
	}
	for i, cmd := range p.Cmds {
		g := guarded || i < last || isGuard(cmd)
		for _, arg := range cmd.Args {
			switch a := arg.(type) {
			case *parse.PipeNode:
				w.pipe(a, dotIsTop, guards, g)
			default:
				if path := topPath(arg, dotIsTop); path != nil {
					w.refs = append(w.refs, Reference{Path: path, Guarded: g, guards: guards})
				}
			}
		}
	}
}

func isGuard(cmd *parse.CommandNode) bool {
	fn, ok := cmd.Args[0].(*parse.IdentifierNode)
	return ok && guardFuncs[fn.Ident]
}

// visitArgs calls f with every argument of every command of p, nested
// pipelines included.
func visitArgs(p *parse.PipeNode, f func(cmd *parse.CommandNode, arg parse.Node)) {
	if p == nil {
		return
	}
	for _, cmd := range p.Cmds {
		for _, arg := range cmd.Args {
			if sub, ok := arg.(*parse.PipeNode); ok {
				visitArgs(sub, f)
				continue
			}
			f(cmd, arg)
		}
	}
}

// topPath is the key path from the top of the data that n refers to: a
// field of . where . is the top, or of $; nil for anything else.
func topPath(n parse.Node, dotIsTop bool) []string {
	switch n := n.(type) {
	case *parse.FieldNode:
		if dotIsTop {
			return n.Ident
		}
	case *parse.VariableNode:
		if len(n.Ident) > 1 && n.Ident[0] == "$" {
			return n.Ident[1:]
		}
	}
	return nil
}

// Missing returns the index in r.Path of the first key the data does not
// have, or -1 when it has them all or a condition around the reference
// tests the missing key (the reference is then never evaluated). The data
// is Helm's top level, its Values vals. A path through a value that is not
// a mapping is not a missing key (rendering fails on it, or it is Helm's
// built-in object).
func (r Reference) Missing(vals *values.Value) int {
	if r.Guarded {
		return -1
	}
	if i := missingAt(r.Path, vals); i >= 0 && !r.guardedBy(i) {
		return i
	}
	return -1
}

// helmObjects are the top-level fields of the data Helm renders with.
var helmObjects = map[string]bool{"Values": true, "Release": true, "Chart": true, "Capabilities": true, "Template": true, "Files": true, "Subcharts": true}

func missingAt(path []string, vals *values.Value) int {
	if path[0] != "Values" {
		if helmObjects[path[0]] {
			return -1
		}
		return 0
	}
	cur := vals
	for i, k := range path[1:] {
		if cur == nil || cur.Kind != values.Map {
			return -1
		}
		if cur = cur.Get(k); cur == nil {
			return i + 1
		}
	}
	return -1
}

// guardedBy reports whether a condition around the reference tests the
// missing key or a key under it: the reference is then never evaluated.
func (r Reference) guardedBy(missing int) bool {
	for _, g := range r.guards {
		if len(g) > missing && slices.Equal(g[:missing+1], r.Path[:missing+1]) {
			return true
		}
	}
	return false
}
