package validate

import (
	"fmt"
	"slices"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/render"
)

// projects reports the clusters of the inventory whose root objects name a
// project (project: of the cluster or of its type) that the Argo CD
// holding them does not get from the fleet: no AppProject of that name
// among the resources rendered for the cluster that runs it (the cluster
// itself, or its hub). Argo CD would never sync such a root, and strata
// bootstrap refuses it (package bootstrap, projects.go); validate says so
// in review. An error per cluster, at the file and line that set the
// project. Targets this run did not render are not checked.
func projects(f *fleet.Fleet, outs []*render.Output, resources [][]*rendered) []Finding {
	byTarget := targetIndex(outs)
	var out []Finding
	for _, c := range f.Clusters {
		argo := c
		if c.Hub != "" {
			argo = f.Cluster(c.Hub)
		}
		if c.Project == fleet.DefaultProject || argo == nil || f.ClusterType(argo.Type) == nil {
			continue
		}
		id := render.Target{ClusterType: f.ClusterType(argo.Type), Node: argo.Target}.ID()
		i, ok := byTarget[id]
		if !ok {
			continue
		}
		resolve := live.NameResolver(f, argo)
		if slices.ContainsFunc(resources[i], func(r *rendered) bool { return r.kind == "AppProject" && resolve(r.name) == c.Project }) {
			continue
		}
		out = append(out, Finding{Severity: Error, Check: CheckProject, File: c.ProjectPos.File, Line: c.ProjectPos.Line, Path: "project",
			Message: fmt.Sprintf("the root of cluster %s is in project %s, but the Argo CD of %s gets no AppProject %s from the fleet "+
				"(target %s renders none): Argo CD would not sync the root, and strata bootstrap refuses it; "+
				"define it as an item of appprojects in config/%s/, or set project: %s",
				c.Name, c.Project, argo.Name, c.Project, id, argo.Type, fleet.DefaultProject)})
	}
	return out
}

// targetIndex maps the ID of each rendered target to its index in outs.
func targetIndex(outs []*render.Output) map[string]int {
	byTarget := map[string]int{}
	for i, out := range outs {
		byTarget[out.Target.ID()] = i
	}
	return byTarget
}
