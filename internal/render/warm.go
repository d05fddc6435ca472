package render

import (
	"reflect"
	"slices"

	"github.com/strata-fleet/strata/internal/values"
)

// Most of what the built-in chart renders for the first time in a large
// fleet are items that one target alone has (a region's override changes
// one component's values), and each of those cost a render of Helm's engine
// of its own, whose fixed part (building its function map, parsing the
// templates) is most of the cost of a render of a few items. RenderStream
// therefore takes targets a window at a time: it first renders the items
// of the window's targets that no render has made yet together, in as few
// renders as their names allow (a render holds one item of each name), and
// remembers their texts (items.go); the targets then find them there.
//
// An item's text depends only on its name and value (itemSection.own), so
// rendering it beside other targets' items gives the text it has in its own
// target's render. A batch that fails in any way (an error, a limit, a
// template that modifies values) is dropped: its items render with their
// targets, which report what is wrong as before.

// warmWindow is how many targets RenderStream takes at a time.
const warmWindow = 128

// itemBatch is items rendered together: at most one of each name per
// section.
type itemBatch struct {
	values  map[string]any   // the values of a target of the window, for all but the items
	release string           // that target's release
	todo    []map[string]any // by section: name -> item
	needed  int              // the sections with items, a bit each
	n       int              // how many items
}

// warms reports whether RenderStream renders items ahead (warm.go).
func (r *Renderer) warms() bool {
	c := r.Chart
	return !r.NoShortcuts && r.Fleet != nil && c.items != nil && c.shared && !c.fresh.Load()
}

// itemBatches returns the batches that render the items of the targets
// (with their values vals; nil where they failed) that no render has made
// yet. A batch of one item is left out: it gains nothing over rendering
// with its target.
func (r *Renderer) itemBatches(targets []Target, vals []*values.Value) []*itemBatch {
	c, prefix := r.Chart, r.namePrefix()
	queued := map[itemKey]bool{}
	var batches []*itemBatch
	for k, tv := range vals {
		if tv == nil {
			continue
		}
		v := goValues(tv, true)
		for i, sec := range itemSections {
			items, _ := v[sec.key].(map[string]any)
			for name, item := range items {
				m, ok := item.(map[string]any)
				if !ok || !sec.own(m) {
					continue
				}
				key := itemKey{sec.key, name, prefix, reflect.ValueOf(m).Pointer()}
				if queued[key] {
					continue
				}
				if _, done := c.items.m.Get(key); done {
					continue
				}
				queued[key] = true
				j := slices.IndexFunc(batches, func(b *itemBatch) bool {
					_, taken := b.todo[i][name]
					return !taken
				})
				if j < 0 {
					j = len(batches)
					batches = append(batches, &itemBatch{values: v, release: targets[k].ClusterType.Name + "-apps",
						todo: make([]map[string]any, len(itemSections))})
				}
				b := batches[j]
				if b.todo[i] == nil {
					b.todo[i] = map[string]any{}
				}
				b.todo[i][name], b.needed, b.n = m, b.needed|1<<i, b.n+1
			}
		}
	}
	return slices.DeleteFunc(batches, func(b *itemBatch) bool { return b.n < 2 })
}

// render renders the items of the batch, each remembered as its target's
// render would (Chart.renderItems), under the limits of one target.
func (b *itemBatch) render(r *Renderer) {
	bud := newBudget(r.limits())
	bounded(bud, func() (struct{}, error) {
		g := &guard{}
		r.Chart.renderItems(b.values, b.todo, b.needed, b.release, r.namePrefix(), g, bud)
		return struct{}{}, nil
	})
}
