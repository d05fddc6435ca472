package render

import (
	"bytes"

	"github.com/strata-fleet/strata/internal/values"
)

// Owner is the component whose values make one rendered resource.
type Owner struct {
	// Component is "" for a resource the templates chart renders from no
	// component's items (or from several components' items at once).
	Component string
	// Kind is the resource's kind (Application, ApplicationSet, ...).
	Kind string
}

// Owners returns, for each resource target t renders, by metadata.name (as
// rendered: Argo CD may resolve what Helm templates remain in it), the
// component whose items make it.
//
// With the built-in chart a resource is named after its item, so the
// answer comes from the values alone: each enabled item of applications
// and applicationsets, owned by the one component that defines it (two
// components cannot, see fleet.TargetValues). With a repository's own
// chart it comes from rendering: the chart with the cluster values alone,
// then with each component's values alone; a resource belongs to the one
// component whose render alone makes it, to none when the chart makes it
// without any component or from several.
func (r *Renderer) Owners(t Target) (map[string]Owner, error) {
	if r.Chart.items != nil {
		return r.builtinOwners(t)
	}
	cluster := r.Fleet.TargetBase(t.ClusterType, t.Node)
	base, err := r.kinds(t, cluster)
	if err != nil {
		return nil, &TargetError{Target: t.ID(), Err: err}
	}
	out := map[string]Owner{}
	count := map[string]int{}
	for _, c := range t.ClusterType.Components {
		cv, err := t.ClusterType.ComponentValues(c, t.Node)
		if err != nil {
			return nil, err
		}
		kinds, err := r.kinds(t, values.Merge(cluster, cv))
		if err != nil {
			return nil, &TargetError{Target: t.ID(), Err: err}
		}
		for name, kind := range kinds {
			if _, ok := base[name]; ok {
				continue
			}
			count[name]++
			out[name] = Owner{Component: c.Name, Kind: kind}
		}
	}
	for name, n := range count {
		if n > 1 {
			out[name] = Owner{Kind: out[name].Kind}
		}
	}
	for name, kind := range base {
		out[name] = Owner{Kind: kind}
	}
	return out, nil
}

// builtinOwners reads the owners of the built-in chart's resources from the
// values: one resource per enabled item, named after it (ItemsByName).
func (r *Renderer) builtinOwners(t Target) (map[string]Owner, error) {
	vals, err := r.Fleet.TargetValues(t.ClusterType, t.Node)
	if err != nil {
		return nil, err
	}
	byName, err := r.ItemsByName(t, vals)
	if err != nil {
		return nil, &TargetError{Target: t.ID(), Err: err}
	}
	renamed := map[Item]string{}
	for name, it := range byName {
		renamed[it] = name
	}
	out := map[string]Owner{}
	for _, c := range t.ClusterType.Components {
		cv, err := t.ClusterType.ComponentValues(c, t.Node)
		if err != nil {
			return nil, err
		}
		for _, sec := range itemSections {
			items := cv.Get(sec.key)
			if items == nil || items.Kind != values.Map {
				continue
			}
			for i, name := range items.Keys {
				if e := items.Vals[i].Get("enabled"); e != nil && e.Text == "false" {
					continue
				}
				if n, ok := renamed[Item{sec.key, name}]; ok {
					name = n
				}
				out[name] = Owner{Component: c.Name, Kind: sec.kind}
			}
		}
	}
	return out, nil
}

// kinds renders the chart's two passes with vals and returns the kind of
// each resource by name.
func (r *Renderer) kinds(t Target, vals *values.Value) (map[string]string, error) {
	release := t.ClusterType.Name + "-apps"
	b := newBudget(r.limits())
	return bounded(b, func() (map[string]string, error) { return r.kindsUnder(t, vals, release, b) })
}

func (r *Renderer) kindsUnder(t Target, vals *values.Value, release string, b *budget) (map[string]string, error) {
	manifest, err := r.passOne(vals, release, b)
	if err != nil {
		return nil, err
	}
	docs, err := r.passTwoGeneral(t.Dir()+"/templates", manifest, vals, release+"-final", b)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(docs))
	for _, d := range docs {
		out[d.name] = kindOfData(d.data)
	}
	return out, nil
}

// kindOfData reads the top-level kind: of an encoded document.
func kindOfData(data []byte) string {
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		if k, ok := bytes.CutPrefix(line, []byte("kind: ")); ok {
			return string(bytes.Trim(k, `"' `))
		}
	}
	return ""
}
