package render

// The text a range writes. Helm's engine writes what a template makes into
// an output buffer of its own, which no function sees: a range that
// writes text and calls no function (`{{ range 100000000 }}text{{ end }}`)
// grew it past the memory limit in one allocation (496 MiB under 256 MiB)
// and could not be interrupted when the time was up. So each template
// handed to the engine has, at the start of each range's body, a call of
// strataRangeText N, N the bytes of text the body writes itself: each
// iteration counts them against the memory limit (limitsfuncs.go) and the
// size limit, and fails when the time is up. What the body's actions print (a value, an
// include) is not in N; what functions make is counted where it is made.
//
// The call is put on the same line as the body's first node, so that
// errors keep their line numbers (a column after it moves).

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/template/parse"

	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"
)

// wroteText is the call: an iteration of a range writes n bytes of text.
// They count against outputPerTarget, and twice against the memory limit:
// while the engine's buffer grows, it holds the old array and the new one.
func (b *budget) wroteText(n int) (string, error) {
	if total := b.rangeText.Add(int64(n)); total > b.limits.OutputPerTarget {
		return "", b.fail(b.limitErr("outputPerTarget", fmt.Sprintf("its ranges wrote %s of text", byteCount(total))))
	}
	return "", b.account("the text of a range", 2*int64(n))
}

// rangeTextFunc is the function the call names.
const rangeTextFunc = "strataRangeText"

// ticked caches tickRanges by template text.
var ticked struct {
	sync.Mutex
	m map[string][]byte
}

// tickedChart is c with tickRanges applied to its templates and to those of
// its dependencies (copies: c is left as it is).
func tickedChart(c *chart.Chart) *chart.Chart {
	cc := *c
	cc.Templates = make([]*common.File, len(c.Templates))
	for i, f := range c.Templates {
		cc.Templates[i] = f
		if data := tickRanges(f.Name, f.Data); len(data) != len(f.Data) { // calls added
			nf := *f
			nf.Data = data
			cc.Templates[i] = &nf
		}
	}
	if deps := c.Dependencies(); len(deps) > 0 {
		copies := make([]*chart.Chart, len(deps))
		for i, d := range deps {
			copies[i] = tickedChart(d)
		}
		cc.SetDependencies(copies...)
	}
	return &cc
}

// tickRanges returns text with the call at the start of every range's body;
// text itself when it has no range or does not parse (the engine then says
// why).
func tickRanges(name string, text []byte) []byte {
	if len(text) == 0 || !strings.Contains(string(text), "range") {
		return text
	}
	ticked.Lock()
	out, ok := ticked.m[string(text)]
	ticked.Unlock()
	if ok {
		return out
	}
	out = insertTicks(name, string(text))
	ticked.Lock()
	if ticked.m == nil || len(ticked.m) > 4096 {
		ticked.m = map[string][]byte{}
	}
	ticked.m[string(text)] = out
	ticked.Unlock()
	return out
}

// tick is a call to insert at pos: with a left trim marker when the node
// it precedes had one (it then trims what that node would have).
type tick struct {
	pos, n int
	trim   bool
}

func insertTicks(name, text string) []byte {
	t := parse.New(name)
	t.Mode = parse.SkipFuncCheck
	trees := map[string]*parse.Tree{}
	if _, err := t.Parse(text, "", "", trees); err != nil {
		return []byte(text)
	}
	var ticks []tick
	var walk func(n parse.Node)
	walk = func(n parse.Node) {
		switch n := n.(type) {
		case *parse.ListNode:
			if n != nil {
				for _, c := range n.Nodes {
					walk(c)
				}
			}
		case *parse.RangeNode:
			if tk, ok := bodyTick(text, n.List); ok {
				ticks = append(ticks, tk)
			}
			walk(n.List)
			walk(n.ElseList)
		case *parse.IfNode:
			walk(n.List)
			walk(n.ElseList)
		case *parse.WithNode:
			walk(n.List)
			walk(n.ElseList)
		}
	}
	for _, tr := range trees {
		if tr.Root != nil {
			walk(tr.Root)
		}
	}
	if len(ticks) == 0 {
		return []byte(text)
	}
	slices.SortFunc(ticks, func(a, b tick) int { return b.pos - a.pos })
	ticks = slices.CompactFunc(ticks, func(a, b tick) bool { return a.pos == b.pos })
	out := text
	for _, tk := range ticks {
		call := "{{ " + rangeTextFunc + " " + strconv.Itoa(tk.n) + " }}"
		if tk.trim {
			call = "{{- " + rangeTextFunc + " " + strconv.Itoa(tk.n) + " }}"
		}
		out = out[:tk.pos] + call + out[tk.pos:]
	}
	return []byte(out)
}

// bodyTick is where the call goes in a range's body, and the bytes of
// text the body writes itself; false for an empty body.
func bodyTick(text string, body *parse.ListNode) (tick, bool) {
	if body == nil || len(body.Nodes) == 0 {
		return tick{}, false
	}
	n := 0
	for _, c := range body.Nodes {
		if tn, ok := c.(*parse.TextNode); ok {
			n += len(tn.Text)
		}
	}
	first := body.Nodes[0]
	pos := int(first.Position())
	if _, ok := first.(*parse.TextNode); ok {
		return tick{pos: pos, n: n}, true
	}
	// An action or control: its position is its first token's, after
	// its "{{" (and "-", the keyword).
	i := strings.LastIndex(text[:pos], "{{")
	if i < 0 {
		return tick{}, false
	}
	return tick{pos: i, n: n, trim: strings.HasPrefix(text[i:], "{{- ")}, true
}
