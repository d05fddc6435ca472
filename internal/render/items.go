package render

import (
	"fmt"
	"maps"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"

	chart "helm.sh/helm/v4/pkg/chart/v2"

	"github.com/strata-fleet/strata/internal/memo"
)

// The built-in chart renders each item of .Values.applications and
// .Values.applicationsets on its own: an item's documents depend only on
// its name and value, except where an application's project is itself a
// template (tpl is given the whole values). Most items are the same value
// object in most targets (values.Shared), so pass 1 of the built-in chart
// renders, through Helm's engine, only the items it has not rendered
// before, and reuses the text of the others. The result is the stream the
// whole chart renders to: the items' texts in the order the chart's range
// gives them.
//
// Templates the chart renders for each item, and what each starts with.
var itemSections = []itemSection{
	{key: "applications", template: "templates/applications.yaml", kind: "Application",
		// tpl $project $: the item depends on all values.
		own: func(item map[string]any) bool { return !strings.Contains(fmt.Sprint(item["project"]), "{{") }},
	{key: "applicationsets", template: "templates/applicationsets.yaml", kind: "ApplicationSet",
		own: func(map[string]any) bool { return true }},
	{key: "appprojects", template: "templates/appprojects.yaml", kind: "AppProject",
		own: func(map[string]any) bool { return true }},
}

type itemSection struct {
	key, template, kind string
	// own reports whether an item's text depends only on its name and value.
	own func(item map[string]any) bool
}

// itemMemo holds the text of each item rendered, by section, name and value
// object, while targets use it (package memo).
type itemMemo struct {
	m memo.Table[itemKey, itemText]
	// tails are what each section's template renders after its items (and
	// all it renders without items).
	tails []string
	// charts[set] is the chart with only the templates of the sections in
	// set (a bit per section) and its helpers (_*.tpl): Helm's engine
	// parses every template of a chart at each render, most of the cost of
	// rendering a few items.
	charts []*chart.Chart
}

// newItemMemo prepares item-by-item rendering for the built-in chart.
func newItemMemo(c *Chart) (*itemMemo, error) {
	out, err := c.render(map[string]any{}, "items", "", nil, nil)
	if err != nil {
		return nil, err
	}
	memo := &itemMemo{charts: make([]*chart.Chart, 1<<len(itemSections))}
	for _, sec := range itemSections {
		memo.tails = append(memo.tails, out[c.chart.Name()+"/"+sec.template])
	}
	for set := range memo.charts {
		ch := *c.chart
		ch.Templates = nil
		for _, t := range c.chart.Templates {
			i := slices.IndexFunc(itemSections, func(sec itemSection) bool { return sec.template == t.Name })
			if i < 0 && strings.HasPrefix(path.Base(t.Name), "_") || i >= 0 && set&(1<<i) != 0 {
				ch.Templates = append(ch.Templates, t)
			}
		}
		memo.charts[set] = &ch
	}
	return memo, nil
}

type itemKey struct {
	section, name, prefix string
	ptr                   uintptr
}

type itemText struct {
	obj  map[string]any // keeps obj alive, so that its address is not reused
	text string
}

// passOneItems renders pass 1 of the built-in chart item by item, reusing
// the items rendered before. It returns false when the chart must render
// the usual way (values of an unexpected shape, any error), which also
// reports errors. g guards the shared values v; prefix is the name prefix.
func (c *Chart) passOneItems(v map[string]any, release, prefix string, g *guard, b *budget) (string, bool) {
	texts := make([]map[string]string, len(itemSections)) // name -> text
	todo := make([]map[string]any, len(itemSections))     // name -> item to render
	needed := 0                                           // the sections with items to render, a bit each
	for i, sec := range itemSections {
		texts[i], todo[i] = map[string]string{}, map[string]any{}
		raw, ok := v[sec.key]
		if !ok || raw == nil {
			continue
		}
		items, ok := raw.(map[string]any)
		if !ok {
			return "", false
		}
		for name, item := range items {
			m, ok := item.(map[string]any)
			if !ok {
				return "", false
			}
			if !sec.own(m) {
				todo[i][name], needed = m, needed|1<<i
				continue
			}
			if t, ok := c.items.m.Get(itemKey{sec.key, name, prefix, reflect.ValueOf(m).Pointer()}); ok {
				texts[i][name] = t.text
				continue
			}
			todo[i][name], needed = m, needed|1<<i
		}
	}
	if needed != 0 {
		got, ok := c.renderItems(v, todo, needed, release, prefix, g, b)
		if !ok {
			return "", false
		}
		for i := range itemSections {
			maps.Copy(texts[i], got[i])
		}
	}
	out := make(map[string][]string, len(itemSections))
	for i, sec := range itemSections {
		parts := make([]string, 0, len(texts[i])+1)
		for _, name := range slices.Sorted(maps.Keys(texts[i])) {
			parts = append(parts, texts[i][name])
		}
		out[c.chart.Name()+"/"+sec.template] = append(parts, c.items.tails[i])
	}
	return joinParts(out), true
}

// renderItems renders through Helm's engine the items of todo (by
// section, name -> item; needed has a bit for each section with items) on
// the values v, which are shared and guarded by g, and returns the text of
// each, by section and name. It remembers the texts of the items whose text
// is their own (itemSection.own). It returns false when the items' output is
// not what item-by-item rendering expects, or on any error.
func (c *Chart) renderItems(v map[string]any, todo []map[string]any, needed int, release, prefix string, g *guard, b *budget) ([]map[string]string, bool) {
	reduced := maps.Clone(v)
	for i, sec := range itemSections {
		reduced[sec.key] = todo[i]
	}
	out, err := c.renderTemplates(c.items.charts[needed], reduced, release, prefix, g.funcs(b), b)
	if err != nil {
		return nil, false
	}
	texts := make([]map[string]string, len(itemSections))
	for i, sec := range itemSections {
		if needed&(1<<i) == 0 {
			continue
		}
		body, ok := strings.CutSuffix(out[c.chart.Name()+"/"+sec.template], c.items.tails[i])
		if !ok {
			return nil, false
		}
		got, ok := splitItems(body, sec.kind, prefix, todo[i])
		if !ok {
			return nil, false
		}
		for name, text := range got {
			if m := todo[i][name].(map[string]any); sec.own(m) {
				// A copy: text is cut from the whole render.
				c.items.m.Put(itemKey{sec.key, name, prefix, reflect.ValueOf(m).Pointer()}, itemText{obj: m, text: strings.Clone(text)})
			}
		}
		texts[i] = got
	}
	return texts, true
}

// splitItems cuts a template's output into the text of each item, by the
// name each document starts with (passOneName). Items that render no
// document get an empty text. It returns false when the output is not a
// sequence of such documents in item order.
func splitItems(body, kind, prefix string, items map[string]any) (map[string]string, bool) {
	sep := "\n---\napiVersion: argoproj.io/v1alpha1\nkind: " + kind + "\nmetadata:\n  name: "
	names := slices.Sorted(maps.Keys(items))
	texts := make(map[string]string, len(names))
	for _, name := range names {
		first, ok := passOneName(prefix, name, items[name])
		if !ok {
			return nil, false
		}
		start := sep + strconv.Quote(first) + "\n"
		if !strings.HasPrefix(body, start) {
			texts[name] = ""
			continue
		}
		end := strings.Index(body[len(start):], sep)
		if end < 0 {
			end = len(body)
		} else {
			end += len(start)
		}
		texts[name], body = body[:end], body[end:]
	}
	return texts, body == ""
}

// passOneName is the name pass 1 of the built-in chart gives the item
// called key (strata.name): its name: or, without one, the name prefix and
// the key. ok is false when item's name: is not a string.
func passOneName(prefix, key string, item any) (string, bool) {
	if m, isMap := item.(map[string]any); isMap {
		if n, has := m["name"]; has {
			s, ok := n.(string)
			return s, ok
		}
	}
	return prefix + key, true
}
