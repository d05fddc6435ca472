package importer

import (
	"io/fs"
	"maps"
	"path"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	sigsyaml "sigs.k8s.io/yaml"
)

// The generators an ApplicationSet's parameters come from, as the
// controller's (appset.go says which and how).

func (e *appSetEval) clustersGen(body map[string]any) ([]map[string]any, error) {
	sel := labels.Everything()
	if s, ok := body["selector"]; ok {
		data, err := sigsyaml.Marshal(s)
		if err != nil {
			return nil, e.errorf("clusters selector: %v", err)
		}
		var ls metav1.LabelSelector
		if err := sigsyaml.UnmarshalStrict(data, &ls); err != nil {
			return nil, e.errorf("clusters selector: %v", err)
		}
		if sel, err = metav1.LabelSelectorAsSelector(&ls); err != nil {
			return nil, e.errorf("clusters selector: %v", err)
		}
	}
	vals, _ := body["values"].(map[string]any)
	var out []map[string]any
	for _, c := range e.clusters {
		if !sel.Matches(labels.Set(c.Labels)) {
			continue
		}
		meta := map[string]any{}
		if len(c.Annotations) > 0 {
			meta["annotations"] = c.Annotations
		}
		if len(c.Labels) > 0 {
			meta["labels"] = c.Labels
		}
		p := map[string]any{"name": c.Name, "nameNormalized": normalize(c.Name), "server": c.Server, "project": "", "metadata": meta}
		if vals != nil {
			rendered := map[string]any{}
			for _, k := range sortedKeys(vals) {
				s, ok := vals[k].(string)
				if !ok {
					return nil, e.errorf("clusters values.%s: not a string", k)
				}
				r, err := e.render(s, p)
				if err != nil {
					return nil, err
				}
				rendered[k] = r
			}
			p["values"] = rendered
		}
		out = append(out, p)
	}
	return out, nil
}

func (e *appSetEval) gitGen(body map[string]any) ([]map[string]any, error) {
	if _, ok := body["directories"]; ok {
		return nil, e.errorf("git directories generator: strata import evaluates the git files generator only")
	}
	var out []map[string]any
	for _, f := range asList(body["files"]) {
		fm, _ := f.(map[string]any)
		pattern, _ := fm["path"].(string)
		if pattern == "" {
			return nil, e.errorf("git files generator without a path")
		}
		matches, err := fs.Glob(e.fsys, path.Join(e.dir, pattern))
		if err != nil {
			return nil, e.errorf("git files path %q: %v", pattern, err)
		}
		for _, m := range matches {
			data, err := fs.ReadFile(e.fsys, m)
			if err != nil {
				return nil, err
			}
			e.reads = append(e.reads, m)
			rel := strings.TrimPrefix(strings.TrimPrefix(m, e.dir), "/")
			var objs []map[string]any
			single := map[string]any{}
			if err := sigsyaml.Unmarshal(data, &single); err == nil {
				objs = append(objs, single)
			} else if err := sigsyaml.Unmarshal(data, &objs); err != nil {
				return nil, e.errorf("git files generator: %s: %v", e.show(m), err)
			}
			for _, o := range objs {
				p := maps.Clone(o)
				dir := path.Dir(rel)
				p["path"] = map[string]any{"path": dir, "basename": path.Base(dir), "filename": path.Base(rel),
					"basenameNormalized": normalize(path.Base(dir)), "filenameNormalized": normalize(path.Base(rel)),
					"segments": strings.Split(dir, "/")}
				out = append(out, p)
			}
		}
	}
	return out, nil
}

func (e *appSetEval) listGen(body map[string]any) ([]map[string]any, error) {
	var out []map[string]any
	for i, el := range asList(body["elements"]) {
		m, ok := el.(map[string]any)
		if !ok {
			return nil, e.errorf("list elements[%d]: not a mapping", i)
		}
		out = append(out, m)
	}
	if y, _ := body["elementsYaml"].(string); y != "" {
		var els []map[string]any
		if err := sigsyaml.Unmarshal([]byte(y), &els); err != nil {
			return nil, e.errorf("list elementsYaml, as rendered: %v", err)
		}
		out = append(out, els...)
	}
	return out, nil
}

func (e *appSetEval) matrixGen(body map[string]any) ([]map[string]any, error) {
	gens := asList(body["generators"])
	if len(gens) != 2 {
		return nil, e.errorf("a matrix generator of %d generators: Argo CD takes exactly two", len(gens))
	}
	first, _ := gens[0].(map[string]any)
	second, _ := gens[1].(map[string]any)
	as, err := e.generate(first, nil)
	if err != nil {
		return nil, err
	}
	var out []map[string]any
	for _, a := range as {
		bs, err := e.generate(second, a)
		if err != nil {
			return nil, err
		}
		for _, b := range bs {
			out = append(out, mergeParams(mergeParams(map[string]any{}, b), a))
		}
	}
	return out, nil
}

// mergeParams merges src into dst, src's keys winning, mappings merged key
// by key (the controller's mergo.Merge WithOverride).
func mergeParams(dst, src map[string]any) map[string]any {
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				dst[k] = mergeParams(maps.Clone(dm), sm)
				continue
			}
		}
		dst[k] = v
	}
	return dst
}
