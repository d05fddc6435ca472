package render

import (
	"fmt"
	"sort"
	"strings"

	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/engine"

	"github.com/strata-fleet/strata/internal/values"
)

// renderValues builds the top-level object Helm hands to templates, as
// `helm template RELEASE CHART --values FILE` does.
func renderValues(c *chart.Chart, meta map[string]any, plain bool, vals *values.Value, release string) (common.Values, error) {
	v, _ := vals.Interface().(map[string]any)
	if v == nil {
		v = map[string]any{}
	}
	opts := common.ReleaseOptions{Name: release, Namespace: "default", Revision: 1, IsInstall: true}
	if !plain {
		return util.ToRenderValues(c, v, opts, common.DefaultCapabilities)
	}
	// A chart without values or dependencies coalesces to a copy of v, which
	// Interface has just made: skip Helm's reflective deep copy.
	return common.Values{
		"Chart":        meta,
		"Capabilities": common.DefaultCapabilities,
		"Release": map[string]any{
			"Name": opts.Name, "Namespace": opts.Namespace, "IsUpgrade": false,
			"IsInstall": true, "Revision": 1, "Service": "Helm",
		},
		"Values": v,
	}, nil
}

// passOne renders the templates chart and joins its manifests into one
// stream, as `helm template` prints them.
func (c *Chart) passOne(vals *values.Value, release string) (string, error) {
	rv, err := renderValues(c.chart, c.meta, c.plain, vals, release)
	if err != nil {
		return "", err
	}
	out, err := engine.Engine{}.Render(c.chart, rv)
	if err != nil {
		return "", err
	}
	names := make([]string, 0, len(out))
	for name := range out {
		if strings.HasSuffix(name, "NOTES.txt") {
			continue
		}
		names = append(names, name)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, name := range names {
		body := out[name]
		if strings.TrimSpace(body) == "" {
			continue
		}
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", name, strings.TrimPrefix(strings.TrimLeft(body, "\n"), "---\n"))
	}
	return b.String(), nil
}

// passTwo renders pass 1's output as a template with the same values.
func passTwo(manifest string, vals *values.Value, release string) (string, error) {
	c := passTwoChart(manifest)
	rv, err := renderValues(c, metadataMap(c.Metadata), true, vals, release)
	if err != nil {
		return "", err
	}
	out, err := engine.Engine{}.Render(c, rv)
	if err != nil {
		return "", err
	}
	return out["temp-chart/templates/apps.yaml"], nil
}

// expressionError finds the string in vals whose template expression fails
// on its own, so that a pass 2 error can name the file and line that holds
// it. It returns nil when no single value fails.
func expressionError(vals *values.Value, release string) error {
	for _, leaf := range vals.Leaves() {
		v := leaf.Value
		if v.Kind != values.String || !strings.Contains(v.Text, "{{") {
			continue
		}
		if _, err := passTwo(v.Text, vals, release); err != nil {
			msg := err.Error()
			if i := strings.LastIndex(msg, "apps.yaml:"); i >= 0 {
				msg = msg[i+len("apps.yaml:"):]
				if j := strings.Index(msg, ": "); j >= 0 {
					msg = msg[j+2:]
				}
			}
			return &values.Error{Pos: v.Pos, Path: leaf.Path, Msg: "template error in value: " + msg,
				Hint: "values are rendered as templates; escape what Argo CD should see as {{`{{ ... }}`}}"}
		}
	}
	return nil
}
