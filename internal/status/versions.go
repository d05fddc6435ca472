package status

import (
	"strings"

	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/engine"

	"github.com/strata-fleet/strata/internal/values"
)

// sections maps a section of values to the kind of resource its items
// become and the path, within an item, of the spec that holds the sources.
var sections = []struct {
	name, kind string
	spec       []string
}{
	{"applications", "Application", nil},
	{"applicationsets", "ApplicationSet", []string{"template", "spec"}},
}

// versions adds the sources of the enabled resources of a component's
// merged values v to cell, and the names of disabled ones.
func versions(v, cluster *values.Value, cell *Cell) {
	env := &templateEnv{cluster: cluster, component: v}
	for _, sec := range sections {
		items := v.Get(sec.name)
		if items == nil || items.Kind != values.Map {
			continue
		}
		for i, name := range items.Keys {
			item := items.Vals[i]
			if item.Kind != values.Map {
				continue
			}
			if e := item.Get("enabled"); e != nil && e.Text == "false" {
				cell.Disabled = append(cell.Disabled, name)
				continue
			}
			spec := item.Lookup(sec.spec...)
			var srcs []*values.Value
			if s := spec.Get("source"); s != nil && s.Kind == values.Map {
				srcs = append(srcs, s)
			}
			if s := spec.Get("sources"); s != nil && s.Kind == values.List {
				srcs = append(srcs, s.Items...)
			}
			for _, src := range srcs {
				if src.Kind != values.Map {
					continue
				}
				cell.Versions = append(cell.Versions, version(sec.kind, name, src, env))
			}
		}
	}
}

func version(kind, name string, src *values.Value, env *templateEnv) Version {
	ver := Version{Resource: name, Kind: kind, RepoURL: text(src.Get("repoURL"), env),
		Chart: text(src.Get("chart"), env), Path: text(src.Get("path"), env)}
	if rev := src.Get("targetRevision"); rev != nil && rev.Kind != values.Null {
		ver.Revision = text(rev, env)
		ver.SetAt = rev.Pos.String()
	} else if ver.Chart == "" {
		ver.Revision = "HEAD"
	}
	return ver
}

// text is a scalar's text, with template expressions
// ({{ .Values.cluster.region }}) resolved as rendering resolves them, then,
// for an expression escaped once ("{{`{{ .Values.cluster.revision }}`}}"),
// as Argo CD resolves it: the rendered directory is a Helm chart that the
// cluster's root object renders with the cluster block as values (its
// revision the one the root follows, the pin; see package bootstrap). That is
// how a chart of the fleet repository runs at exactly the revision of the
// rendered tree that deploys it, and what status must show.
func text(v *values.Value, env *templateEnv) string {
	if v == nil || v.Kind == values.Null || v.Kind == values.Map || v.Kind == values.List {
		return ""
	}
	if !strings.Contains(v.Text, "{{") {
		return v.Text
	}
	s := env.resolve(v.Text)
	if strings.Contains(s, "{{") && strings.Contains(s, ".Values.") {
		s = env.resolve(s)
	}
	return s
}

// templateEnv evaluates strings of one target's values with Helm's engine,
// as the second pass of rendering does.
type templateEnv struct {
	cluster, component *values.Value
	vals               common.Values
}

func (e *templateEnv) resolve(s string) string {
	if e.vals == nil {
		v, _ := values.Merge(values.Merge(values.NewMap(values.Pos{}), e.component), wrapCluster(e.cluster)).Interface().(map[string]any)
		e.vals = common.Values{
			"Values":       v,
			"Capabilities": common.DefaultCapabilities,
			"Release":      map[string]any{"Name": "status", "Namespace": "default", "IsInstall": true, "Revision": 1, "Service": "Helm"},
			"Chart":        map[string]any{"Name": "status", "Version": "0.1.0"},
		}
	}
	c := &chart.Chart{
		Metadata:  &chart.Metadata{APIVersion: "v2", Name: "status", Version: "0.1.0"},
		Templates: []*common.File{{Name: "templates/value", Data: []byte(s)}},
	}
	out, err := engine.Engine{}.Render(c, e.vals)
	if err != nil {
		return s
	}
	return out["status/templates/value"]
}

func wrapCluster(cluster *values.Value) *values.Value {
	m := values.NewMap(values.Pos{})
	m.Set("cluster", cluster)
	return m
}

// Revisions returns the cell's distinct revisions in order, "-" for none.
func (c Cell) Revisions() []string {
	var out []string
	seen := map[string]bool{}
	for _, v := range c.Versions {
		r := v.Revision
		if r == "" {
			r = "-"
		}
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}
