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
		out = append(out, collision(l, ps))
	}
	return out
}

// collision is the finding for the resources ps that land at l, on the file
// of the first one.
func collision(l landing, ps []placed) Finding {
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
			"name them apart (with the built-in chart: render.namePrefix in config/config.yaml, such as {{ .Values.cluster.cluster }}-)",
			l.kind, l.name, l.namespace, l.argocd, len(ps), strings.Join(shown, ", "), more)}
	if doc, err := values.Decode(ps[0].file, ps[0].data); err == nil {
		if n := doc.Lookup("metadata", "name"); n != nil {
			fd.Line = n.Pos.Line
		}
	}
	return fd
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
