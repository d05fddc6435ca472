package bootstrap_test

import (
	"fmt"
	"github.com/strata-fleet/strata/internal/testing/goldenfile"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/strata-fleet/strata/internal/argorender"
	"github.com/strata-fleet/strata/internal/bootstrap"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/render"
)

// testCredentials stand in for a spoke's credentials in the golden files.
var testCredentials = &bootstrap.Credentials{Source: "test", Config: bootstrap.ClusterConfig{
	BearerToken: "example-token", TLSClientConfig: bootstrap.TLSClientConfig{CAData: []byte("-----BEGIN CERTIFICATE-----\n...\n")},
}}

// TestExamplesBootstrapGolden keeps testdata/<example>/<cluster>.yaml, the
// bootstrap of every cluster of the examples, current.
func TestExamplesBootstrapGolden(t *testing.T) {
	for _, name := range examples {
		f, chart := loadExample(t, name), exampleChart(t, name)
		for _, c := range f.Clusters {
			t.Run(name+"/"+c.Name, func(t *testing.T) {
				opts := bootstrap.Options{}
				if c.Hub != "" && c.ExternalSecret == nil {
					opts.Credentials = testCredentials
				}
				b, err := bootstrap.Build(f, chart, c.Name, opts)
				if err != nil {
					t.Fatal(err)
				}
				got, err := bootstrap.Manifest(b)
				if err != nil {
					t.Fatal(err)
				}
				golden(t, filepath.Join("testdata", name, c.Name+".yaml"), got)
			})
		}
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	goldenfile.Check(t, path, got, *update)
}

// inCluster is the server of the cluster Argo CD runs on.
const inCluster = "https://kubernetes.default.svc"

// argoView renders the target of cluster c as its root object makes Argo CD
// render it: every resource, with the cluster's values.
func argoView(t *testing.T, f *fleet.Fleet, chart *render.Chart, c *fleet.Cluster) map[string]*unstructured.Unstructured {
	t.Helper()
	r := &render.Renderer{Fleet: f, Chart: chart}
	out, err := r.Render(render.Target{ClusterType: f.ClusterType(c.Type), Node: c.Target})
	if err != nil {
		t.Fatal(err)
	}
	cl := map[string]any{"name": c.Name, "revision": f.ClusterRevision(c)}
	for i, d := range f.Config.Dimensions {
		cl[d.Singular] = c.Target.Path()[i]
	}
	objs, err := argorender.Render(out, map[string]any{"cluster": cl})
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// TestExamplesArgoRender checks that what every cluster's root object hands
// Argo CD renders: each Application reaches its cluster by name, and the
// ApplicationSets keep the expressions of the ApplicationSet controller.
func TestExamplesArgoRender(t *testing.T) {
	for _, name := range examples {
		f, chart := loadExample(t, name), exampleChart(t, name)
		for _, c := range f.Clusters {
			t.Run(name+"/"+c.Name, func(t *testing.T) {
				objs := argoView(t, f, chart, c)
				if len(objs) == 0 {
					t.Fatal("nothing rendered")
				}
				for n, o := range objs {
					text := fmt.Sprint(o.Object)
					if strings.Contains(text, "<no value>") || strings.Contains(text, ".Values") {
						t.Errorf("%s: unresolved: %s", n, text)
					}
					switch o.GetKind() {
					case "Application":
						name, _, _ := unstructured.NestedString(o.Object, "spec", "destination", "name")
						server, _, _ := unstructured.NestedString(o.Object, "spec", "destination", "server")
						if name != c.Name && (server == "" || server != c.Server && !(c.Server == "" && server == inCluster)) {
							t.Errorf("Application %s goes to name %q, server %q, want the cluster %s", n, name, server, c.Name)
						}
					case "ApplicationSet":
						if tmpl, _, _ := unstructured.NestedString(o.Object, "spec", "template", "metadata", "name"); !strings.Contains(tmpl, "{{") {
							t.Errorf("ApplicationSet %s: template name %q lost the controller's expression", n, tmpl)
						}
					}
				}
			})
		}
	}
}

// renderedTarget reads a committed rendered/ file of an example.
func renderedFile(t *testing.T, example, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(exampleDir(example), "rendered", filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func exists(example, path string) bool {
	_, err := os.Stat(filepath.Join(exampleDir(example), "rendered", filepath.FromSlash(path)))
	return err == nil
}
