package render

import (
	"errors"
	"text/template"
)

// Renders share value objects between targets (values.Shared: equal
// subtrees of different targets are the same Go maps and slices), and
// the built-in chart's items are memoized by their identity (items.go). That is only sound while no template modifies a
// value. Rather than guess from a chart's text whether it may (templates run
// tpl on value text, which may call anything), a render on shared values
// gets template functions that cannot modify them: each sprig function that
// modifies its argument (mutatingFuncs) is replaced by one that modifies
// nothing, records the attempt and fails the render. The render then runs
// again on a fresh copy of the values with Helm's own functions, which is
// what Helm itself does, and the chart renders that way from then on.
// Either way the output is the same; only the cost differs.

// mutatingFuncs are the template functions (sprig's, as Helm has them) that
// modify a map or list they are given.
var mutatingFuncs = []string{"set", "unset", "merge", "mergeOverwrite", "mustMerge", "mustMergeOverwrite"}

// errShared fails a render on shared values whose templates try to modify
// them. Users never see it: the render runs again on fresh values.
var errShared = errors.New("a template modifies values that renders share; rendering again on a copy")

// guard is the state of one render on shared values.
type guard struct {
	// mutated is set when a template tried to modify a value.
	mutated bool
	// tpl, when set, is the strict tpl of a strict render (stricttpl.go).
	tpl *strictTpl
}

// funcs returns the template functions that replace Helm's for a render on
// shared values under b.
func (g *guard) funcs(b *budget) template.FuncMap {
	m := b.funcs()
	fail := func(...any) (any, error) {
		g.mutated = true
		return nil, errShared
	}
	for _, name := range mutatingFuncs {
		m[name] = fail
	}
	return g.tpl.withFuncs(m)
}
