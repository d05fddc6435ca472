package validate

import (
	"fmt"
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/render"
	"github.com/strata-fleet/strata/internal/values"
)

// placed is a rendered resource as it lands in an Argo CD: the cluster of
// the inventory whose rendered/ directory makes it, and the file.
type placed struct {
	cluster *fleet.Cluster
	target  string
	file    string
	data    []byte
}

// landing is where a resource lands: an Argo CD (the cluster that runs it),
// a namespace there, a kind and a name.
type landing struct{ argocd, namespace, kind, name string }

// collisions reports resources that two clusters of the inventory put under
// the same kind, namespace and name into one Argo CD: a cluster with hub:
// is managed by its hub's Argo CD, any other runs its own. Each root
// Application then writes the same object, and one cluster's resource
// replaces the other's. An error per resource, naming both clusters, their
// targets and files, and the Argo CD.
func collisions(f *fleet.Fleet, outs []*render.Output, resources [][]*rendered) []Finding {
	byTarget := targetIndex(outs)
	var order []landing
	at := map[landing][]placed{}
	for _, c := range f.Clusters {
		ct := f.ClusterType(c.Type)
		if ct == nil || c.Target == nil {
			continue
		}
		id := render.Target{ClusterType: ct, Node: c.Target}.ID()
		i, ok := byTarget[id]
		if !ok {
			continue
		}
		resolve := live.NameResolver(f, c)
		for _, r := range resources[i] {
			if r.name == "" {
				continue
			}
			l := landing{argocd: live.ArgoCDOf(c), namespace: namespaceOf(r.obj), kind: r.kind, name: resolve(r.name)}
			if _, seen := at[l]; !seen {
				order = append(order, l)
			}
			at[l] = append(at[l], placed{cluster: c, target: id, file: r.file, data: r.data})
		}
	}
	var out []Finding
	for _, l := range order {
		ps := at[l]
		if len(ps) < 2 {
			continue
		}
		out = append(out, collision(f, l, ps))
	}
	return out
}

// collision is the finding for the resources ps that land at l, on the file
// of the first one.
func collision(f *fleet.Fleet, l landing, ps []placed) Finding {
	var who []string
	for _, p := range ps {
		who = append(who, fmt.Sprintf("%s (target %s, %s)", p.cluster.Name, p.target, p.file))
	}
	shown := who[:min(len(who), 4)]
	more := ""
	if len(who) > len(shown) {
		more = fmt.Sprintf(" and %d more clusters", len(who)-len(shown))
	}
	fd := Finding{Severity: Error, Check: CheckCollision, File: ps[0].file, Path: "metadata.name",
		Message: fmt.Sprintf("%s %q lands in namespace %s of %s's Argo CD from %d clusters: %s%s; each overwrites the others there: "+
			"name them apart (with the built-in chart: render.namePrefix in config/config.yaml, such as %s)",
			l.kind, l.name, l.namespace, l.argocd, len(ps), strings.Join(shown, ", "), more, prefixAdvice(f, ps))}
	if doc, err := values.Decode(ps[0].file, ps[0].data); err == nil {
		if n := doc.Lookup("metadata", "name"); n != nil {
			fd.Line = n.Pos.Line
		}
	}
	return fd
}

// prefixAdvice is a render.namePrefix that names the resources of ps
// apart in this fleet: the key of the last dimension in .Values.cluster
// ({{ .Values.cluster.region }}-) where the clusters' targets differ
// there, else every dimension's, joined. It named .Values.cluster.cluster
// in every fleet, a key that only a fleet with a dimension clusters has.
func prefixAdvice(f *fleet.Fleet, ps []placed) string {
	dims := f.Config.Dimensions
	if len(dims) == 0 {
		return "{{ .Values.cluster.cluster }}-"
	}
	last := map[string]bool{}
	for _, p := range ps {
		if p.cluster.Target != nil {
			path := p.cluster.Target.Path()
			last[path[len(path)-1]] = true
		}
	}
	if len(last) == len(ps) {
		return "{{ .Values.cluster." + dims[len(dims)-1].Singular + " }}-"
	}
	var keys []string
	for _, d := range dims {
		keys = append(keys, "{{ .Values.cluster."+d.Singular+" }}")
	}
	return strings.Join(keys, "-") + "-"
}

// namespaceOf is the namespace a resource lands in: its own, or the one its
// root Application deploys to, Argo CD's (strata bootstrap's default).
func namespaceOf(obj map[string]any) string {
	if md, ok := obj["metadata"].(map[string]any); ok {
		if ns, _ := md["namespace"].(string); ns != "" {
			return ns
		}
	}
	return live.DefaultNamespace
}
