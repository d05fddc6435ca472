package live

import (
	"runtime"
	"slices"
	"sync"

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
	own, err := Own(f, owners, nil)
	if err != nil {
		return nil, err
	}
	return ExpectOwned(f, own), nil
}

// Owned is what owners answered for each target, by target ID
// (render.Target.ID): the part of Expect that renders or merges values.
type Owned map[string]map[string]render.Owner

// Own asks owners about the target of every cluster of the inventory (of
// those only keeps, when only is not nil), once per target, in parallel
// (with a repository's own chart each answer renders the chart once per
// component).
func Own(f *fleet.Fleet, owners Owners, only func(render.Target) bool) (Owned, error) {
	var targets []render.Target
	seen := map[string]bool{}
	for _, c := range f.Clusters {
		if ct := f.ClusterType(c.Type); ct != nil {
			t := render.Target{ClusterType: ct, Node: c.Target}
			if !seen[t.ID()] && (only == nil || only(t)) {
				seen[t.ID()] = true
				targets = append(targets, t)
			}
		}
	}
	results := make([]map[string]render.Owner, len(targets))
	errs := make([]error, len(targets))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(targets)) {
		wg.Go(func() {
			for i := range next {
				results[i], errs[i] = owners(targets[i])
			}
		})
	}
	for i := range targets {
		next <- i
	}
	close(next)
	wg.Wait()
	out := make(Owned, len(targets))
	for i, t := range targets {
		if errs[i] != nil {
			return nil, errs[i]
		}
		out[t.ID()] = results[i]
	}
	return out, nil
}

// ExpectOwned is Expect's list from its owners' answers.
func ExpectOwned(f *fleet.Fleet, own Owned) []Expected {
	var out []Expected
	for _, c := range f.Clusters {
		ct := f.ClusterType(c.Type)
		if ct == nil {
			continue
		}
		t := render.Target{ClusterType: ct, Node: c.Target}
		o := own[t.ID()]
		target := targetName(f, ct, c.Target)
		var names []string
		for name, ow := range o {
			if ow.Kind == "Application" || ow.Kind == "ApplicationSet" {
				names = append(names, name)
			}
		}
		slices.Sort(names)
		env := newNameEnv(f, c)
		for _, name := range names {
			ow := o[name]
			out = append(out, Expected{
				ArgoCD: ArgoCDOf(c), Cluster: c.Name, ClusterType: ct.Name, Target: target, Component: ow.Component,
				Kind: ow.Kind, Name: env.resolve(name), File: t.Dir() + "/" + ct.Layout.ManifestFile(name),
			})
		}
	}
	return out
}

// targetName is a target as commands name it (status.TargetName, which
// cannot be imported here: status shows live state).
func targetName(f *fleet.Fleet, ct *fleet.ClusterType, n *fleet.Node) string {
	if len(f.ClusterTypes) == 1 {
		return n.ID()
	}
	return ct.Name + "/" + n.ID()
}

// RootPath is the directory a cluster's root Application renders, where
// cfg's layout puts its target.
func RootPath(cfg *fleet.Config, c *fleet.Cluster) string {
	return cfg.TargetDir(c.Type, c.Target)
}
