package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/strata-fleet/strata/internal/values"
)

// Item is an item of the values that the built-in chart renders as one
// resource: applications.<Key> or applicationsets.<Key>.
type Item struct {
	Section, Key string
}

// ItemsByName returns the item of t's values vals that makes each resource
// the built-in chart renders, by the resource's name, when names are not
// the items' keys (config.yaml's render.namePrefix, an item's name:); nil
// when every resource is named after its item. A template in a name is
// rendered with the values, as pass 2 renders it.
func (r *Renderer) ItemsByName(t Target, vals *values.Value) (map[string]Item, error) {
	prefix := r.namePrefix()
	var items []Item
	var names []string
	renamed := false
	for _, sec := range itemSections {
		m := vals.Get(sec.key)
		if m == nil || m.Kind != values.Map {
			continue
		}
		for i, key := range m.Keys {
			if e := m.Vals[i].Get("enabled"); e != nil && e.Text == "false" {
				continue // renders nothing
			}
			name := prefix + key
			if n := m.Vals[i].Get("name"); n != nil {
				name = n.Text
			}
			renamed = renamed || name != key
			items = append(items, Item{Section: sec.key, Key: key})
			names = append(names, name)
		}
	}
	if !renamed {
		return nil, nil
	}
	var text strings.Builder
	for _, n := range names {
		text.WriteString("- " + strconv.Quote(n) + "\n")
	}
	final := text.String()
	if strings.Contains(final, "{{") {
		var err error
		b := newBudget(r.limits())
		final, err = renderText(final, vals, t.ClusterType.Name+"-apps-final", true, false, b)
		b.release()
		if err != nil {
			return nil, err
		}
	}
	list, err := values.Decode(t.Dir()+"/templates", []byte(final))
	if err != nil {
		return nil, err
	}
	if list.Kind != values.List || len(list.Items) != len(items) {
		return nil, fmt.Errorf("the names of the built-in chart's resources (render.namePrefix, name:) do not render to one name each:\n%s", indent([]byte(final)))
	}
	out := make(map[string]Item, len(items))
	for i, it := range list.Items {
		out[it.Text] = items[i]
	}
	return out, nil
}
