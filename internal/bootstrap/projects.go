package bootstrap

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/strata-fleet/strata/internal/argorender"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/render"
	"github.com/strata-fleet/strata/internal/values"
)

// Projects. A root object names the Argo CD AppProject of its cluster
// (fleet.Cluster.Project: the inventory's project:, else the cluster
// type's, else default), and Argo CD syncs it only once that AppProject
// exists. default always does; any other is defined by the fleet itself,
// as an item of appprojects rendered for the cluster whose Argo CD holds
// the root, which that very root would deploy: it could never sync. So
// bootstrap applies the AppProject too, as the fleet renders it for that
// Argo CD, before the root; the root then manages it like any other
// resource of its rendered/ directory. A project the fleet does not render
// for that Argo CD is an error naming the cluster, the project and where it
// belongs, never a root left waiting.
//
// The self-management Application keeps the project its own definition
// names (it is the target's Application, as the root will sync it; seed
// 002's stays in default), and when that is not default its AppProject is
// applied the same way.

// projectUse is an object of a bundle that names a project.
type projectUse struct {
	project string
	// by says which object names it, for messages.
	by string
	// pos is where the project is set; zero when not in config/.
	pos values.Pos
}

// rootProject is the project use of cluster c's root.
func rootProject(c *fleet.Cluster) projectUse {
	return projectUse{project: c.Project, by: "the root of cluster " + c.Name, pos: c.ProjectPos}
}

// appProjects returns the AppProjects that uses name, other than default,
// as cluster argo's target renders them (argo is the cluster whose Argo CD
// holds the objects): one per project, in the order of uses.
func (b *builder) appProjects(argo *fleet.Cluster, uses []projectUse) ([]*unstructured.Unstructured, error) {
	var names []string
	var needs []projectUse
	for _, u := range uses {
		if u.project != fleet.DefaultProject && !slices.Contains(names, u.project) {
			names = append(names, u.project)
			needs = append(needs, u)
		}
	}
	if len(needs) == 0 {
		return nil, nil
	}
	if b.chart == nil {
		return nil, fmt.Errorf("%s is in project %s: bootstrap needs the fleet's chart to find the AppProject", needs[0].by, needs[0].project)
	}
	objs, err := b.argoObjects(argo, names...)
	if err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	for _, u := range needs {
		o := objs[u.project]
		if o == nil || o.GetKind() != "AppProject" {
			return nil, b.missingProject(argo, u)
		}
		if o.GetNamespace() == "" {
			o.SetNamespace(b.opts.Namespace)
		}
		out = append(out, o)
	}
	return out, nil
}

// missingProject reports a project that the Argo CD of cluster argo does
// not get from the fleet.
func (b *builder) missingProject(argo *fleet.Cluster, u projectUse) error {
	where := b.renderedPath(argo) + "/" + b.f.Config.Layout.ManifestFile(u.project)
	named := ""
	if b.f.Config.Render.NamePrefix != "" {
		named = " (with its name: " + u.project + ", or render.namePrefix names it otherwise)"
	}
	return &values.Error{Pos: u.pos,
		Msg: fmt.Sprintf("%s is in project %s, but the Argo CD of %s has no AppProject %s: %s's target %s renders none (no %s)",
			u.by, u.project, argo.Name, u.project, argo.Name, argo.Target.ID(), where),
		Hint: fmt.Sprintf("define it in config/%s/ as an item of appprojects%s (appprojects: {%s: {name: %s, sourceRepos: [...], destinations: [...]}}) so that %s's root deploys it and bootstrap can apply it first, or set project: %s",
			argo.Type, named, u.project, u.project, argo.Name, fleet.DefaultProject)}
}

// argoObjects renders cluster c's target as its root makes Argo CD render
// it (with the root's cluster values), keeping the resources called names.
func (b *builder) argoObjects(c *fleet.Cluster, names ...string) (map[string]*unstructured.Unstructured, error) {
	out, err := b.renderTarget(c)
	if err != nil {
		return nil, err
	}
	objs, err := argorender.Render(out, b.clusterValues(c, b.f.ClusterRevision(c)), names...)
	if err != nil {
		return nil, fmt.Errorf("bootstrapping %s: %w", c.Name, err)
	}
	return objs, nil
}

// renderTarget renders c's target in memory, once per Build.
func (b *builder) renderTarget(c *fleet.Cluster) (*render.Output, error) {
	if out := b.rendered[c.Name]; out != nil {
		return out, nil
	}
	r := &render.Renderer{Fleet: b.f, Chart: b.chart}
	out, err := r.Render(render.Target{ClusterType: b.f.ClusterType(c.Type), Node: c.Target})
	if err != nil {
		return nil, err
	}
	if b.rendered == nil {
		b.rendered = map[string]*render.Output{}
	}
	b.rendered[c.Name] = out
	return out, nil
}
