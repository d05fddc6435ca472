package render

import (
	"reflect"
	"strings"
	"testing"

	"github.com/strata-fleet/strata/internal/values"
)

// TestWarmItemsServeTheWindow renders the batches of a small bench fleet's
// targets: they are fewer than the items, they leave every item of every
// target remembered (so that the targets render none), and each text is the
// one the target's own render gives.
func TestWarmItemsServeTheWindow(t *testing.T) {
	f, c := smallBenchFleet(t)
	r := &Renderer{Fleet: f, Chart: c}
	if !r.warms() {
		t.Fatal("the bench fleet's render does not render items ahead")
	}
	targets := r.Targets()
	vals := make([]*values.Value, len(targets))
	for i, tg := range targets {
		var err error
		if vals[i], err = f.TargetValues(tg.ClusterType, tg.Node); err != nil {
			t.Fatal(err)
		}
	}
	batches := r.itemBatches(targets, vals)
	items := 0
	for _, b := range batches {
		items += b.n
		b.render(r)
	}
	if len(batches) == 0 || len(batches) >= items {
		t.Fatalf("%d batches for %d items", len(batches), items)
	}
	if again := r.itemBatches(targets, vals); len(again) != 0 {
		t.Errorf("%d batches left after rendering them", len(again))
	}
	// Each remembered text is what the target's own render makes of it.
	fresh := &Chart{chart: c.chart, Source: c.Source, meta: c.meta, plain: c.plain, shared: c.shared}
	for i, tg := range targets {
		v := goValues(vals[i], true)
		out, err := fresh.render(v, "r", "", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, sec := range itemSections {
			items, _ := v[sec.key].(map[string]any)
			for name, item := range items {
				m := item.(map[string]any)
				if !sec.own(m) {
					continue
				}
				got, ok := c.items.m.Get(itemKey{sec.key, name, "", reflect.ValueOf(m).Pointer()})
				if !ok {
					t.Fatalf("%s: %s.%s not rendered ahead", tg.ID(), sec.key, name)
				}
				if whole := out[c.chart.Name()+"/"+sec.template]; !strings.Contains(whole, got.text) {
					t.Fatalf("%s: %s.%s rendered ahead as\n%s\nnot part of its target's render:\n%s", tg.ID(), sec.key, name, got.text, whole)
				}
			}
		}
	}
}
