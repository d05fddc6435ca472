package importer

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing/fstest"

	"gopkg.in/yaml.v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/strata-fleet/strata/internal/argorender"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/memfs"
	"github.com/strata-fleet/strata/internal/render"
)

// ErrMismatch is what Verify returns when the imported fleet would not give
// the source's objects: a fault of strata import, never of the source.
var ErrMismatch = errors.New("the imported fleet renders other objects than the source's (a bug in strata import; please report it)")

// Verify renders res's files as strata render does, then each target's
// rendered/ as Argo CD's Helm renders the root's chart, and compares the
// objects with the source's: every Argo CD object of every target, field
// for field, except the fields the report says were left out. Fields set
// to null count as unset on both sides (the API server prunes them).
func Verify(res *Result) error {
	m := fstest.MapFS{}
	for name, data := range res.Files {
		m[name] = &fstest.MapFile{Data: data, Mode: 0o644}
	}
	r, err := render.Load(memfs.Index(m))
	if err != nil {
		// The names come from the source and the options (--cluster-type-name,
		// --dimensions): fleet's rules for names apply to them.
		return fmt.Errorf("the fleet import would write does not load (its names come from the repository, --cluster-type-name and --dimensions): %w", err)
	}
	outs, err := r.RenderAll(r.Targets(), nil)
	if err != nil {
		return fmt.Errorf("%w: rendering it: %w", ErrMismatch, err)
	}
	byID := map[string]*Target{}
	for _, t := range res.Source.Targets {
		byID[res.Source.typeOf(t)+"/"+t.ID()] = t
	}
	var problems []string
	for _, out := range outs {
		id := out.Target.ClusterType.Name + "/" + out.Target.Node.ID()
		t := byID[id]
		if t == nil {
			problems = append(problems, fmt.Sprintf("target %s: not in the source", id))
			continue
		}
		got, err := argorender.Render(out, nil)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrMismatch, err)
		}
		want, err := res.expected(t)
		if err != nil {
			return err
		}
		problems = append(problems, compare(t.Label(), want, got)...)
		problems = append(problems, compareRoot(r.Fleet.Config, out.Target.ClusterType.Name, t)...)
		delete(byID, id)
	}
	for id := range byID {
		problems = append(problems, fmt.Sprintf("target %s: not rendered", id))
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return fmt.Errorf("%w:\n%s", ErrMismatch, strings.Join(problems, "\n"))
	}
	return nil
}

// expected returns t's Argo CD objects as Argo CD reads them from the
// source, without the fields the report names as left out.
func (res *Result) expected(t *Target) (map[string]map[string]any, error) {
	dropped := map[string][][]string{}
	left := map[string]bool{}
	for _, f := range res.Findings {
		if f.Target != t.Label() || f.Object == "" {
			continue
		}
		if f.leftOut {
			left[f.Object] = true
		} else if f.dropped != nil {
			dropped[f.Object] = append(dropped[f.Object], f.dropped)
		}
	}
	out := map[string]map[string]any{}
	for _, o := range t.Objects {
		if left[o.Key()] {
			continue
		}
		data, err := yaml.Marshal(o.Doc)
		if err != nil {
			return nil, err
		}
		var obj map[string]any
		if err := utilyaml.Unmarshal(data, &obj); err != nil {
			return nil, fmt.Errorf("%s: %w", o.At, err)
		}
		for _, p := range dropped[o.Key()] {
			unstructured.RemoveNestedField(obj, p...)
		}
		out[o.Name] = obj
	}
	return out, nil
}

// compareRoot lists how the root strata bootstrap writes for target t
// (its cluster named as its leaf) differs from the source's root, in what
// config.yaml's roots: keeps: kind, name, project and syncPolicy.
func compareRoot(cfg *fleet.Config, ct string, t *Target) []string {
	if t.Root == nil || cfg.Roots == nil {
		return nil
	}
	spec := get(t.Root.Doc, "spec")
	project := str(spec, "project")
	if project == "" {
		project = fleet.DefaultProject
	}
	gotProject := cfg.Roots.Project
	if gotProject == "" {
		gotProject = fleet.DefaultProject
	}
	name := cfg.RootNameTemplate(false, ct, t.Path[len(t.Path)-1], func(i int) string { return t.Path[i] })
	var want map[string]any
	if sp := get(spec, "syncPolicy"); sp != nil {
		if err := decodeNode(sp, &want); err != nil {
			return []string{fmt.Sprintf("target %s: root %s: syncPolicy: %v", t.Label(), t.Root.Name, err)}
		}
	}
	var problems []string
	for _, d := range []struct{ what, want, got string }{
		{"kind", t.Root.Kind, cfg.RootKind()}, {"name", t.Root.Name, name}, {"project", project, gotProject},
	} {
		if d.want != d.got {
			problems = append(problems, fmt.Sprintf("target %s: root %s: %s %q, strata's %q", t.Label(), t.Root.Name, d.what, d.want, d.got))
		}
	}
	var got map[string]any // as JSON has it, as want
	if data, err := json.Marshal(cfg.Roots.SyncPolicy); err == nil {
		_ = json.Unmarshal(data, &got)
	}
	for _, d := range differences("syncPolicy", withoutNulls(want), withoutNulls(got)) {
		problems = append(problems, fmt.Sprintf("target %s: root %s: %s", t.Label(), t.Root.Name, d))
	}
	return problems
}

// compare lists how got differs from want, object by object.
func compare(target string, want map[string]map[string]any, got map[string]*unstructured.Unstructured) []string {
	var problems []string
	for name, w := range want {
		g, ok := got[name]
		if !ok {
			problems = append(problems, fmt.Sprintf("target %s: %s %s is not rendered", target, w["kind"], name))
			continue
		}
		for _, d := range differences("", withoutNulls(w), withoutNulls(g.Object)) {
			problems = append(problems, fmt.Sprintf("target %s: %s %s: %s", target, w["kind"], name, d))
		}
	}
	for name, g := range got {
		if _, ok := want[name]; !ok {
			problems = append(problems, fmt.Sprintf("target %s: %s %s is rendered, not in the source", target, g.GetKind(), name))
		}
	}
	return problems
}

// Differences lists where the object got differs from want, as Verify
// compares them (fields set to null count as unset): each field's path,
// with want's value and got's. hack/realcmp compares a repository's own
// tooling's objects with strata's by it.
func Differences(want, got map[string]any) []string {
	return differences("", withoutNulls(want), withoutNulls(got))
}

// differences lists where got differs from want: each path, with the
// source's value and strata's, in JSON.
func differences(path string, want, got any) []string {
	wm, wok := want.(map[string]any)
	gm, gok := got.(map[string]any)
	if wok && gok {
		var out []string
		for _, k := range sortedKeys(wm) {
			out = append(out, differences(join(path, k), wm[k], gm[k])...)
		}
		for _, k := range sortedKeys(gm) {
			if _, ok := wm[k]; !ok {
				out = append(out, differences(join(path, k), nil, gm[k])...)
			}
		}
		return out
	}
	wl, wok := want.([]any)
	gl, gok := got.([]any)
	if wok && gok && len(wl) == len(gl) {
		var out []string
		for i := range wl {
			out = append(out, differences(fmt.Sprintf("%s[%d]", path, i), wl[i], gl[i])...)
		}
		return out
	}
	if reflect.DeepEqual(want, got) {
		return nil
	}
	return []string{fmt.Sprintf("%s: the source has %s, strata renders %s", path, jsonText(want), jsonText(got))}
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func jsonText(v any) string {
	if v == nil {
		return "nothing"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// withoutNulls returns v without the mapping keys whose value is null.
func withoutNulls(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			if x != nil {
				out[k] = withoutNulls(x)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = withoutNulls(x)
		}
		return out
	}
	return v
}
