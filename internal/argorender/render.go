package argorender

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/loader/archive"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/render"

	"github.com/strata-fleet/strata/internal/hint"
)

// The release Argo CD renders a target's chart as: the root Application
// (bootstrap.RootName) in Argo CD's namespace (bootstrap.DefaultNamespace).
const (
	Release   = "root"
	Namespace = "argocd"
)

// Render renders the rendered/ directory of a target as Argo CD does: a
// Helm chart (its Chart.yaml, values.yaml and templates/), with vals (an
// Application's helm.valuesObject) over values.yaml. Only the templates of
// the resources called names are rendered (all when names is empty); the
// result maps each resource's name to it.
func Render(out *render.Output, vals map[string]any, names ...string) (map[string]*unstructured.Unstructured, error) {
	dir := out.Target.Dir() + "/"
	want := map[string]bool{}
	for _, n := range names {
		want["templates/"+n+".yaml"] = true
	}
	var files []*archive.BufferedFile
	for _, f := range out.Files {
		name := strings.TrimPrefix(f.Path, dir)
		if strings.HasPrefix(name, "templates/") && len(want) > 0 && !want[name] {
			continue
		}
		files = append(files, &archive.BufferedFile{Name: name, Data: f.Data})
	}
	ch, err := loader.LoadFiles(files)
	if err != nil {
		return nil, fmt.Errorf("loading %s as a Helm chart: %w", out.Target.Dir(), err)
	}
	rv, err := util.ToRenderValues(ch, vals, common.ReleaseOptions{Name: Release, Namespace: Namespace, Revision: 1, IsInstall: true}, nil)
	if err != nil {
		return nil, fmt.Errorf("values of %s: %w", out.Target.Dir(), err)
	}
	rendered, err := render.RenderChart(ch, rv, fleet.DefaultRenderLimits(), out.Target.Dir())
	if err != nil {
		return nil, fmt.Errorf("rendering %s as Argo CD does: %w", out.Target.Dir(), err)
	}
	objs := map[string]*unstructured.Unstructured{}
	for file, text := range rendered {
		if strings.TrimSpace(text) == "" || path.Ext(file) != ".yaml" {
			continue
		}
		var m map[string]any
		if err := utilyaml.Unmarshal([]byte(text), &m); err != nil {
			return nil, fmt.Errorf("%s rendered by Helm is not YAML: %w", file, err)
		}
		if len(m) == 0 {
			continue
		}
		o := &unstructured.Unstructured{Object: m}
		objs[o.GetName()] = o
	}
	return objs, nil
}

// renderCommand is strata render, which Read's errors name.
var renderCommand = hint.Strata("render")

// Read reads target t's rendered/ directory from fsys: its Chart.yaml,
// values.yaml and the YAML files of templates/.
func Read(fsys fs.FS, t render.Target) (*render.Output, error) {
	out := &render.Output{Target: t}
	dir := t.Dir()
	files := []string{dir + "/Chart.yaml", dir + "/values.yaml"}
	templates, err := fs.ReadDir(fsys, dir+"/templates")
	if err != nil {
		return nil, hint.Errorf("reading %s (run %s?): %w", dir, renderCommand, err)
	}
	for _, e := range templates {
		if !e.IsDir() && path.Ext(e.Name()) == ".yaml" {
			files = append(files, dir+"/templates/"+e.Name())
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
