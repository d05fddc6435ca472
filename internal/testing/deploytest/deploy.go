package deploytest

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/engine"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// resources are the kinds the chart renders (monitoring off), by kind.
var resources = map[string]schema.GroupVersionResource{
	"ServiceAccount":      {Version: "v1", Resource: "serviceaccounts"},
	"ConfigMap":           {Version: "v1", Resource: "configmaps"},
	"Service":             {Version: "v1", Resource: "services"},
	"Role":                {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"},
	"RoleBinding":         {Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"},
	"Deployment":          {Group: "apps", Version: "v1", Resource: "deployments"},
	"PodDisruptionBudget": {Group: "policy", Version: "v1", Resource: "poddisruptionbudgets"},
}

// Render renders the chart in dir as `helm template strata --namespace
// strata` does, with the values vals (YAML); it returns the manifests by
// template.
func Render(dir, vals string) (map[string]string, error) {
	c, err := loader.Load(dir)
	if err != nil {
		return nil, err
	}
	var v map[string]any
	if err := yaml.Unmarshal([]byte(vals), &v); err != nil {
		return nil, fmt.Errorf("values: %w", err)
	}
	rv, err := util.ToRenderValues(c, v, common.ReleaseOptions{Name: "strata", Namespace: "strata", Revision: 1, IsInstall: true},
		common.DefaultCapabilities)
	if err != nil {
		return nil, err
	}
	return engine.Render(c, rv)
}

// Manifest joins the rendered templates in name order, NOTES.txt aside.
func Manifest(out map[string]string) string {
	var names []string
	for name, text := range out {
		if strings.HasSuffix(name, "NOTES.txt") || strings.TrimSpace(text) == "" {
			continue
		}
		names = append(names, name)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, name := range names {
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", name, strings.TrimSpace(out[name]))
	}
	return b.String()
}

// Apply applies the documents of manifest server-side, as dyn's user, as
// helm's field manager; it returns their kinds, sorted.
func Apply(ctx context.Context, dyn dynamic.Interface, manifest string) ([]string, error) {
	var kinds []string
	for _, doc := range strings.Split(manifest, "\n---\n") {
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(strings.TrimPrefix(doc, "---\n")), &obj); err != nil {
			return nil, err
		}
		if obj == nil {
			continue
		}
		u := &unstructured.Unstructured{Object: obj}
		gvr, ok := resources[u.GetKind()]
		if !ok {
			return nil, fmt.Errorf("the chart renders a %s, which Apply does not know", u.GetKind())
		}
		data, err := u.MarshalJSON()
		if err != nil {
			return nil, err
		}
		force := true
		if _, err := dyn.Resource(gvr).Namespace(u.GetNamespace()).Patch(ctx, u.GetName(), types.ApplyPatchType, data,
			metav1.PatchOptions{FieldManager: "helm", Force: &force}); err != nil {
			return nil, fmt.Errorf("applying %s %s/%s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
		}
		kinds = append(kinds, u.GetKind())
	}
	slices.Sort(kinds)
	return kinds, nil
}

// deployment is what the tests and RunnerArgs read of the chart's
// Deployment.
type deployment struct {
	Kind string
	Spec struct {
		Template struct {
			Spec struct {
				Containers []struct {
					Name         string
					Args         []string
					VolumeMounts []struct {
						Name      string
						MountPath string `yaml:"mountPath"`
						ReadOnly  bool   `yaml:"readOnly"`
					} `yaml:"volumeMounts"`
				}
				Volumes []struct {
					Name      string
					ConfigMap *struct{ Name string } `yaml:"configMap"`
				}
			}
		}
	}
}

// RunnerArgs are the arguments of the runner container of the chart's
// Deployment in out (Render's).
func RunnerArgs(out map[string]string) ([]string, error) {
	for _, text := range out {
		var d deployment
		if err := yaml.Unmarshal([]byte(text), &d); err != nil || d.Kind != "Deployment" {
			continue
		}
		for _, c := range d.Spec.Template.Spec.Containers {
			if c.Name == "runner" {
				return c.Args, nil
			}
		}
	}
	return nil, fmt.Errorf("the chart renders no Deployment with a runner container")
}
