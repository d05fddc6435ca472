package live

import (
	"slices"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/render"
)

// Expected is one Application or ApplicationSet that the rendered output
// makes for a cluster of the inventory, and where it should be live.
type Expected struct {
	// ArgoCD is the cluster whose Argo CD holds it; Cluster the cluster of
	// the inventory whose rendered/ directory makes it.
	ArgoCD  string `json:"argocd"`
	Cluster string `json:"cluster"`
	// ClusterType, Target (as commands name it, see status.TargetName)
	// and Component are its cell of the matrix.
	ClusterType string `json:"clusterType"`
	Target      string `json:"target"`
	Component   string `json:"component"`
	Kind        string `json:"kind"`
	// Name is its name in Argo CD: the rendered name with what Helm
	// templates remain in it resolved with the cluster's values, as
	// Argo CD's render of the root Application resolves them.
	Name string `json:"name"`
	// File is the rendered file, relative to the fleet repository.
	File string `json:"file"`
}

// Owners says which component makes each resource of a target: the
// rendering's answer, [render.Renderer.Owners].
type Owners func(render.Target) (map[string]render.Owner, error)

// Expect lists what the rendered output makes for every cluster of the
// inventory, in inventory order, then by name. Resources the templates
// chart makes from no single component get Component "".
func Expect(f *fleet.Fleet, owners Owners) ([]Expected, error) {
	type key struct {
		ct *fleet.ClusterType
		n  *fleet.Node
	}
	cache := map[key]map[string]render.Owner{}
	var out []Expected
	for _, c := range f.Clusters {
		ct := f.ClusterType(c.Type)
		if ct == nil {
			continue
		}
		t := render.Target{ClusterType: ct, Node: c.Target}
		own, ok := cache[key{ct, c.Target}]
		if !ok {
			var err error
			if own, err = owners(t); err != nil {
				return nil, err
			}
			cache[key{ct, c.Target}] = own
		}
		target := targetName(f, ct, c.Target)
		var names []string
		for name, o := range own {
			if o.Kind == "Application" || o.Kind == "ApplicationSet" {
				names = append(names, name)
			}
		}
		slices.Sort(names)
		env := newNameEnv(f, c)
		for _, name := range names {
			o := own[name]
			out = append(out, Expected{
				ArgoCD: ArgoCDOf(c), Cluster: c.Name, ClusterType: ct.Name, Target: target, Component: o.Component,
				Kind: o.Kind, Name: env.resolve(name), File: t.Dir() + "/templates/" + name + ".yaml",
			})
		}
	}
	return out, nil
}

// targetName is a target as commands name it (status.TargetName, which
// cannot be imported here: status shows live state).
func targetName(f *fleet.Fleet, ct *fleet.ClusterType, n *fleet.Node) string {
	if len(f.ClusterTypes) == 1 {
		return n.ID()
	}
	return ct.Name + "/" + n.ID()
}

// RootPath is the directory a cluster's root Application renders.
func RootPath(c *fleet.Cluster) string {
	return render.OutputDir + "/" + c.Type + "/" + c.Target.ID()
}
