package argorender_test

import (
	"bytes"
	"testing"
	"testing/fstest"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/argorender"
	"github.com/strata-fleet/strata/internal/render"
)

// clusterLabel and clusterAnnotation, followed through the three template
// engines a value passes: strata's render, Argo CD's Helm render of
// rendered/ (argorender.Render), then the ApplicationSet controller's
// goTemplate over the parameters its clusters generator gives for one
// cluster Secret (text/template with Sprig, as the controller runs it).
// What the controller makes is the Secret's label and annotation values,
// whatever the key's characters.
func TestClusterSecretFactsReachTheApplicationSetController(t *testing.T) {
	fsys := fstest.MapFS{
		"config/config.yaml":       {Data: []byte("dimensions: [environments]\ncluster_types: [hub]\nsequence: {environments: [prod]}\n")},
		"config/hub/defaults.yaml": {Data: []byte("applicationsets: {default: {namespace: argocd}}\n")},
		"config/hub/platform/values.yaml": {Data: []byte(`applicationsets:
  platform:
    goTemplate: true
    generators: [{clusters: {}}]
    template:
      metadata: {name: '{{ argocd ".name" }}-platform'}
      spec:
        project: default
        destination: {server: '{{ argocd ".server" }}', namespace: platform}
        source:
          repoURL: https://example.com/platform
          path: charts/platform
          targetRevision: '{{ clusterAnnotation "git_revision" }}'
          helm:
            valuesObject:
              arn: '{{ clusterAnnotation "api_target_group_arn" }}'
              tier: 'tier-{{ clusterLabel "example.com/tier" }}'
`)},
	}
	r, err := render.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	out, err := r.Render(r.Targets()[0])
	if err != nil {
		t.Fatal(err)
	}
	objs, err := argorender.Render(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	spec := objs["platform"].Object["spec"].(map[string]any)
	// The clusters generator's parameters for one Secret (goTemplate).
	params := map[string]any{
		"name": "mc-1", "server": "https://10.0.0.1:6443",
		"metadata": map[string]any{
			"labels":      map[string]any{"example.com/tier": "gold"},
			"annotations": map[string]any{"git_revision": "826fa76", "api_target_group_arn": "arn:aws:elasticloadbalancing:tg/api"},
		},
	}
	got := controllerRender(t, spec["template"], params)
	want := map[string]any{
		"metadata": map[string]any{"name": "mc-1-platform"},
		"spec": map[string]any{
			"project":     "default",
			"destination": map[string]any{"server": "https://10.0.0.1:6443", "namespace": "platform"},
			"source": map[string]any{
				"repoURL": "https://example.com/platform", "path": "charts/platform", "targetRevision": "826fa76",
				"helm": map[string]any{"valuesObject": map[string]any{"arn": "arn:aws:elasticloadbalancing:tg/api", "tier": "tier-gold"}},
			},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the Application the controller makes (-want +got):\n%s", diff)
	}
}

// controllerRender renders every string of v as the ApplicationSet
// controller renders a template's fields with goTemplate: each on its own,
// text/template with Sprig, missing keys an error.
func controllerRender(t *testing.T, v any, params map[string]any) any {
	t.Helper()
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range v {
			out[k] = controllerRender(t, e, params)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = controllerRender(t, e, params)
		}
		return out
	case string:
		tmpl, err := template.New("field").Funcs(sprig.TxtFuncMap()).Option("missingkey=error").Parse(v)
		if err != nil {
			t.Fatalf("the controller cannot parse %q: %v", v, err)
		}
		var buf bytes.Buffer
		if err := tmpl.Execute(&buf, params); err != nil {
			t.Fatalf("the controller cannot render %q: %v", v, err)
		}
		return buf.String()
	}
	return v
}
