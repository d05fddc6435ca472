package bootstrap

import (
	"fmt"
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
)

// selfApp returns Argo CD's self-management Application of cluster c: the
// Application called opts.SelfApp that c's target renders, as Argo CD's Helm
// render of the cluster's rendered/ directory (with the root's cluster
// values) makes it, or nil when the target has none.
func (b *builder) selfApp(c *fleet.Cluster) (*unstructured.Unstructured, error) {
	if b.chart == nil {
		return nil, nil
	}
	objs, err := b.argoObjects(c, b.opts.SelfApp)
	if err != nil {
		return nil, err
	}
	o := objs[b.opts.SelfApp]
	if o == nil || o.GetKind() != "Application" {
		return nil, nil
	}
	if o.GetNamespace() == "" {
		o.SetNamespace(b.opts.Namespace)
	}
	return o, nil
}

// selfAppProject is the project use of the self-management Application
// self of cluster c: the project its definition names.
func selfAppProject(c *fleet.Cluster, self *unstructured.Unstructured) projectUse {
	p, _, _ := unstructured.NestedString(self.Object, "spec", "project")
	if p == "" {
		p = fleet.DefaultProject
	}
	return projectUse{project: p, by: fmt.Sprintf("the self-management Application %s of cluster %s", self.GetName(), c.Name)}
}

// ArgoRender renders the rendered/ directory of a target as Argo CD does: a
// Helm chart (its Chart.yaml, values.yaml and templates/), with vals (an
// Application's helm.valuesObject) over values.yaml. Only the templates of
// the resources called names are rendered (all when names is empty); the
// result maps each resource's name to it.
func ArgoRender(out *render.Output, vals map[string]any, names ...string) (map[string]*unstructured.Unstructured, error) {
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
	rv, err := util.ToRenderValues(ch, vals, common.ReleaseOptions{Name: RootName, Namespace: DefaultNamespace, Revision: 1, IsInstall: true}, nil)
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
