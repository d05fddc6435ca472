package argorender

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/strata-fleet/strata/internal/hint"
	"github.com/strata-fleet/strata/internal/render"
)

// The release Argo CD renders a target's chart as: the root Application
// (bootstrap.RootName) in Argo CD's namespace (bootstrap.DefaultNamespace).
const (
	Release   = render.ArgoRelease
	Namespace = render.ArgoNamespace
)

// Render renders the rendered/ directory of a target as Argo CD does: a
// Helm chart (its Chart.yaml, values.yaml and templates/), with vals (an
// Application's helm.valuesObject) over values.yaml; plain manifests
// (layout.manifests) as a directory source, read as they are (vals do not
// apply: the root gives none). Only the resources called names are
// rendered (all when names is empty); the result maps each resource's name
// to it.
func Render(out *render.Output, vals map[string]any, names ...string) (map[string]*unstructured.Unstructured, error) {
	if out.Target.ClusterType.Layout.Plain() {
		return plainObjects(out, names)
	}
	rendered, err := render.RenderAsArgoCD(out.Target.Dir(), out.Files, vals, names...)
	if err != nil {
		return nil, err
	}
	objs := map[string]*unstructured.Unstructured{}
	for file, text := range rendered {
		if path.Ext(file) != ".yaml" {
			continue
		}
		if err := addObjects(objs, file, text, nil); err != nil {
			return nil, err
		}
	}
	return objs, nil
}

// plainObjects are the resources of a target's plain manifests, those
// called names (all when names is empty).
func plainObjects(out *render.Output, names []string) (map[string]*unstructured.Unstructured, error) {
	var want map[string]bool
	if len(names) > 0 {
		want = map[string]bool{}
		for _, n := range names {
			want[n] = true
		}
	}
	objs := map[string]*unstructured.Unstructured{}
	for _, f := range out.Files {
		if err := addObjects(objs, f.Path, string(f.Data), want); err != nil {
			return nil, err
		}
	}
	return objs, nil
}

// addObjects adds the YAML documents of text (file's) to objs by name,
// those in want when it is not nil.
func addObjects(objs map[string]*unstructured.Unstructured, file, text string, want map[string]bool) error {
	r := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(text)))
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return fmt.Errorf("reading %s: %w", file, err)
		}
		var m map[string]any
		if err := utilyaml.Unmarshal(doc, &m); err != nil {
			return fmt.Errorf("%s is not YAML: %w", file, err)
		}
		if len(m) == 0 {
			continue
		}
		o := &unstructured.Unstructured{Object: m}
		if want == nil || want[o.GetName()] {
			objs[o.GetName()] = o
		}
	}
}

// renderCommand is strata render, which Read's errors name.
var renderCommand = hint.Strata("render")

// Read reads target t's rendered/ directory from fsys: its Chart.yaml,
// values.yaml and the YAML files of templates/; with plain manifests
// (layout.manifests), the YAML files of the directory, as Argo CD reads a
// directory source.
func Read(fsys fs.FS, t render.Target) (*render.Output, error) {
	out := &render.Output{Target: t}
	dir := t.Dir()
	var files []string
	yamls := dir + "/templates"
	if t.ClusterType.Layout.Plain() {
		yamls = dir
	} else {
		files = []string{dir + "/Chart.yaml", dir + "/values.yaml"}
	}
	entries, err := fs.ReadDir(fsys, yamls)
	if err != nil {
		return nil, hint.Errorf("reading %s (run %s?): %w", dir, renderCommand, err)
	}
	for _, e := range entries {
		if !e.IsDir() && (path.Ext(e.Name()) == ".yaml" || t.ClusterType.Layout.Plain() && path.Ext(e.Name()) == ".yml") {
			files = append(files, yamls+"/"+e.Name())
		}
	}
	for _, name := range files {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, hint.Errorf("reading %s (run %s?): %w", name, renderCommand, err)
		}
		out.Files = append(out.Files, render.File{Path: name, Data: data})
	}
	return out, nil
}
