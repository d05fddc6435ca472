package validate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/template/parse"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/render"
	"github.com/strata-fleet/strata/internal/values"
)

// CheckReference: a value's template refers to a key the values do not
// have, unguarded, so that it renders an empty string.
const CheckReference = "reference"

// RuleMissingKey names the reference check's one rule.
const RuleMissingKey = "missing-key"

// guardFuncs are the template functions that take a value that may be
// missing and say what to do then: a reference given to one of them (as
// an argument or piped into it) is not a finding.
var guardFuncs = map[string]bool{
	"default": true, "required": true, "empty": true, "coalesce": true, "hasKey": true,
	"ternary": true, "or": true, "not": true, "kindIs": true, "typeIs": true, "dig": true,
}

// ref is a reference of a template to a key path from the top of the data
// Helm renders with (Values, Release...): .Values.cluster.name is
// [Values cluster name].
type ref struct {
	path []string
	// guards are the paths that enclosing if/with conditions test: the
	// reference is only evaluated when they are set.
	guards [][]string
}

// references returns the unguarded references of a template text to key
// paths from the top of the data; nil when it does not parse (rendering
// reports that).
func references(text string) []ref {
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

type refWalker struct{ refs []ref }

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
				if path := topPath(arg, dotIsTop); path != nil && !g {
					w.refs = append(w.refs, ref{path: path, guards: guards})
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

// missingAt returns the index of the first key of path the data does not
// have, or -1: the data is Helm's top level, its Values vals. A path
// through a value that is not a mapping is not a missing key (rendering
// fails on it, or it is Helm's built-in object).
func missingAt(path []string, vals *values.Value) int {
	if path[0] != "Values" {
		if helmRoots[path[0]] {
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
func guardedBy(r ref, missing int) bool {
	for _, g := range r.guards {
		if len(g) > missing && slices.Equal(g[:missing+1], r.path[:missing+1]) {
			return true
		}
	}
	return false
}

// referenceKey identifies a finding of the reference check across targets.
type referenceKey struct {
	pos  values.Pos
	expr string
}

// missingReferences reports each value's template reference to a key the
// target's values do not have and nothing guards: it renders an empty string. The
// values' strings are checked, and config.yaml's render.namePrefix, which
// is rendered against them too. One finding per value and expression,
// however many targets it is missing in, with their number.
func missingReferences(f *fleet.Fleet, outs []*render.Output) []Finding {
	var prefix *values.Value
	if rc := f.Config.Render; strings.Contains(rc.NamePrefix, "{{") {
		prefix = values.NewString(rc.NamePrefix, rc.NamePrefixPos)
	}
	parsed := map[string][]ref{}
	type found struct {
		fd      Finding
		targets []string
	}
	byKey := map[referenceKey]*found{}
	var order []referenceKey
	for _, out := range outs {
		check := func(path []string, v *values.Value) {
			if !strings.Contains(v.Text, "{{") {
				return
			}
			refs, ok := parsed[v.Text]
			if !ok {
				refs = references(v.Text)
				parsed[v.Text] = refs
			}
			for _, r := range refs {
				i := missingAt(r.path, out.Values)
				if i < 0 || guardedBy(r, i) {
					continue
				}
				expr := "." + strings.Join(r.path, ".")
				k := referenceKey{v.Pos, expr}
				if f := byKey[k]; f != nil {
					f.targets = append(f.targets, out.Target.ID())
					continue
				}
				byKey[k] = &found{fd: referenceFinding(v.Pos, path, expr, r.path[i]), targets: []string{out.Target.ID()}}
				order = append(order, k)
			}
		}
		walkValueStrings(out.Values, nil, check)
		if prefix != nil {
			check([]string{"render", "namePrefix"}, prefix)
		}
	}
	var findings []Finding
	for _, k := range order {
		f := byKey[k]
		if n := len(f.targets); n > 1 {
			f.fd.Message += fmt.Sprintf(" (in %d targets: %s and %d more)", n, f.targets[0], n-1)
		} else {
			f.fd.Message += " (in " + f.targets[0] + ")"
		}
		findings = append(findings, f.fd)
	}
	return findings
}

// referenceFinding is the finding of the value at pos (key path path)
// whose expression expr refers to key, which the values do not have.
func referenceFinding(pos values.Pos, path []string, expr, key string) Finding {
	fix := fmt.Sprintf("check the spelling against the target's values (strata explain), or give it a default where it may be unset: {{ %s | default \"...\" }}", expr)
	if !strings.HasPrefix(expr, ".Values.") {
		fix = fmt.Sprintf("strata renders values against .Values: an expression meant for Argo CD's own templating (an ApplicationSet's template) is written {{ argocd %q }}", expr)
	}
	return Finding{Severity: Error, Check: CheckReference, Rule: RuleMissingKey, File: pos.File, Line: pos.Line,
		Path:    values.PathString(path),
		Message: fmt.Sprintf("%s refers to a key the values do not have: %q, and renders ''; %s", expr, key, fix)}
}

// walkValueStrings calls f with every string of v and its key path.
func walkValueStrings(v *values.Value, path []string, f func(path []string, v *values.Value)) {
	switch v.Kind {
	case values.Map:
		for i, k := range v.Keys {
			walkValueStrings(v.Vals[i], append(slices.Clip(path), k), f)
		}
	case values.List:
		for i, it := range v.Items {
			walkValueStrings(it, append(slices.Clip(path), strconv.Itoa(i)), f)
		}
	case values.String:
		f(path, v)
	}
}
