package live

import (
	"fmt"
	"io/fs"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/strata-fleet/strata/internal/argorender"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/render"
	"github.com/strata-fleet/strata/internal/textdiff"
)

// argoRender reads cluster c's rendered/ directory from fsys and renders it
// as Argo CD renders c's root Application, with vals over its values.yaml
// (package argorender).
func argoRender(fsys fs.FS, f *fleet.Fleet, c *fleet.Cluster, vals map[string]any) (map[string]*unstructured.Unstructured, error) {
	ct := f.ClusterType(c.Type)
	if ct == nil {
		return nil, fmt.Errorf("cluster %s: no cluster type %s", c.Name, c.Type)
	}
	out, err := argorender.Read(fsys, render.Target{ClusterType: ct, Node: c.Target})
	if err != nil {
		return nil, err
	}
	return argorender.Render(out, vals)
}

// marshalDoc is the YAML of what strata renders of an object: its name,
// meta and spec, without empty values (which the API server drops).
func marshalDoc(name string, m Meta, spec map[string]any) []byte {
	meta := map[string]any{"name": name}
	if len(m.Labels) > 0 {
		meta["labels"] = m.Labels
	}
	if len(m.Annotations) > 0 {
		meta["annotations"] = m.Annotations
	}
	if len(m.Finalizers) > 0 {
		meta["finalizers"] = m.Finalizers
	}
	doc := map[string]any{"metadata": meta}
	if s := prune(spec); s != nil {
		doc["spec"] = s
	}
	data, err := yaml.Marshal(doc)
	if err != nil {
		return []byte(err.Error())
	}
	return data
}

// prune returns v without nulls, empty maps and empty lists, at any depth
// (v itself is not modified); nil when nothing is left.
func prune(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if p := prune(e); p != nil {
				out[k] = p
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case []any:
		if len(x) == 0 {
			return nil
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = prune(e)
		}
		return out
	}
	return v
}

// unifiedDiff is the unified diff from the rendered object (file) to the
// live one (named live).
func unifiedDiff(file, live string, before, after []byte) string {
	return textdiff.Unified(file, live, before, after, 3)
}
