package status

import (
	"regexp"
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
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
// merged values v to cell, and the names of disabled ones. Their templated
// strings are handed to r, which fills them in when it resolves its batch;
// until then the cell must not grow.
// namedRevisionRef finds a targetRevision's reference to a named revision.
var namedRevisionRef = regexp.MustCompile(`\.Values\.cluster\.revisions\.([A-Za-z0-9][A-Za-z0-9_.-]*)`)

// secretRef finds a revision left for the ApplicationSet controller to read
// from the cluster Secret: written with argocd, clusterAnnotation or
// clusterLabel, or by hand ({{ .metadata.annotations.git_revision }},
// {{ index .metadata.labels "x" }}).
var secretRef = regexp.MustCompile(`\{\{.*?(?:\.metadata\.(annotations|labels)(?:\.([A-Za-z0-9_-]+)| \\?"([^"\\]+))|cluster(Annotation|Label) \\?"([^"\\]+))`)

// secretKey returns "annotations.<key>" or "labels.<key>" when the revision
// s is read from the cluster Secret at run time, else "".
func secretKey(s string) string {
	m := secretRef.FindStringSubmatch(s)
	switch {
	case m == nil:
		return ""
	case m[1] != "":
		return m[1] + "." + m[2] + m[3]
	}
	return strings.ToLower(m[4]) + "s." + m[5]
}

func versions(v, cluster *values.Value, cell *Cell, r *resolver) {
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
			for _, src := range fleet.Sources(item.Lookup(sec.spec...)) {
				if src.Kind == values.Map {
					cell.Versions = append(cell.Versions, Version{Resource: name, Kind: sec.kind})
					version(cell, len(cell.Versions)-1, src, env, r)
				}
			}
		}
	}
}

// version fills in the version k of cell from the source src, through r
// for templated strings (which set it by index: the slice may still grow).
func version(cell *Cell, k int, src *values.Value, env *templateEnv, r *resolver) {
	rev := src.Get("targetRevision")
	hasRev := rev != nil && rev.Kind != values.Null
	text(src.Get("repoURL"), env, r, func(s string) { cell.Versions[k].RepoURL = s })
	text(src.Get("path"), env, r, func(s string) { cell.Versions[k].Path = s })
	text(src.Get("chart"), env, r, func(s string) {
		cell.Versions[k].Chart = s
		if !hasRev && s == "" {
			cell.Versions[k].Revision = "HEAD"
		}
	})
	if hasRev {
		text(rev, env, r, func(s string) {
			cell.Versions[k].Revision = s
			if key := secretKey(s); key != "" {
				// Read from the cluster Secret by the ApplicationSet
				// controller: what strata's bootstrap writes there, if
				// it writes that key.
				cell.Versions[k].Secret, cell.Versions[k].Revision = key, ""
				if key == "annotations."+fleet.RevisionAnnotation {
					cell.Versions[k].Revision = r.branch
				}
			}
		})
		cell.Versions[k].SetAt = rev.Pos.String()
		if m := namedRevisionRef.FindStringSubmatch(rev.Text); m != nil {
			cell.Versions[k].RevisionName = m[1]
		}
	}
}

// text sets a scalar's text, with template expressions
// ({{ .Values.cluster.region }}) resolved as rendering resolves them, then,
// for an expression escaped once ("{{`{{ .Values.cluster.revision }}`}}"),
// as Argo CD resolves it: the rendered directory is a Helm chart that the
// cluster's root object renders with the cluster block as values (its
// revision the one the root follows, the pin; see package bootstrap). That is
// how a chart of the fleet repository runs at exactly the revision of the
// rendered tree that deploys it, and what status must show. A templated text
// is set when r resolves its batch.
func text(v *values.Value, env *templateEnv, r *resolver, set func(string)) {
	switch {
	case v == nil || v.Kind == values.Null || v.Kind == values.Map || v.Kind == values.List:
		set("")
	case !strings.Contains(v.Text, "{{"):
		set(v.Text)
	default:
		r.add(env, v.Text, func(s string) {
			if strings.Contains(s, "{{") && strings.Contains(s, ".Values.") {
				r.add(env, s, set)
				return
			}
			set(s)
		})
	}
}

// templateEnv holds the values that one cell's strings are evaluated
// with, as the second pass of rendering evaluates them.
type templateEnv struct {
	cluster, component *values.Value
	vals               map[string]any
}

// values returns the cell's values as Helm's engine takes them (.Values),
// converted once.
func (e *templateEnv) values() map[string]any {
	if e.vals == nil {
		e.vals, _ = values.Merge(values.Merge(values.NewMap(values.Pos{}), e.component), wrapCluster(e.cluster)).Interface().(map[string]any)
	}
	return e.vals
}

func wrapCluster(cluster *values.Value) *values.Value {
	m := values.NewMap(values.Pos{})
	m.Set("cluster", cluster)
	return m
}

// Revisions returns the cell's distinct revisions in order, "-" for none;
// one that follows a named revision is followed by its name:
// "826fa76d08fc2ce87c863196e52d5a4fa9259a82 (charts)".
func (c Cell) Revisions() []string {
	var out []string
	seen := map[string]bool{}
	for _, v := range c.Versions {
		r := v.Revision
		if r == "" {
			r = "-"
		}
		switch {
		case v.RevisionName != "":
			r += " (" + v.RevisionName + ")"
		case v.Secret != "" && v.Revision != "":
			r += " (" + strings.TrimPrefix(v.Secret, "annotations.") + ")"
		case v.Secret != "":
			kind, key, _ := strings.Cut(v.Secret, ".")
			r = "(" + strings.TrimSuffix(kind, "s") + " " + key + ")" // (annotation api_revision)
		}
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}
