//go:build linux

package e2e

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// projectsValues are the hub's AppProjects: platform for the hub's own
// root, tenant-a for the spoke's, rendered for the hub's Argo CD like any
// resource of its rendered/ directory (named as written: the fleet's
// render.namePrefix would prefix them).
const projectsValues = `appprojects:
  platform:
    name: platform
    sourceRepos: ["*"]
    destinations: [{server: "*", namespace: "*"}, {name: "*", namespace: "*"}]
    clusterResourceWhitelist: [{group: "*", kind: "*"}]
  tenant-a:
    name: tenant-a
    sourceRepos: ["*"]
    destinations: [{server: "*", namespace: "*"}, {name: "*", namespace: "*"}]
    clusterResourceWhitelist: [{group: "*", kind: "*"}]
`

// TestE2EProjects: root objects in projects other than default. The hub's
// root is in platform, its cluster type's project (config.yaml); the
// spoke's root, made in the hub's Argo CD by the hub's root ApplicationSet,
// is in tenant-a, named in its inventory file and read from its cluster
// secret. Both AppProjects are defined by the fleet in the hub's rendered
// output, which those very roots deploy: strata bootstrap applies them
// before the roots, and Argo CD syncs everything from the first bootstrap.
func TestE2EProjects(t *testing.T) {
	e := Start(t, Options{Spokes: []Spoke{{Name: "spoke-a", Target: "integration/int-sector-1/us-east1"}}})
	defer e.Done()
	mark := e.Mark()

	e.Repo.ReplaceInFile("config/config.yaml", "  - name: hub\n", "  - name: hub\n    project: platform\n")
	e.Repo.WriteFile("config/hub/defaults.yaml", e.Repo.ReadFile("config/hub/defaults.yaml")+"\nappprojects:\n  default:\n    namespace: argocd\n")
	e.Repo.WriteFile("config/hub/projects/values.yaml", projectsValues)
	e.Repo.WriteFile("config/clusters/spoke-a.yaml", e.Repo.ReadFile("config/clusters/spoke-a.yaml")+"project: tenant-a\n")

	head := deploy(t, e)
	mark("render, validate, commit, bootstrap the hub and a spoke, with their projects")
	e.Converge(Expect{Head: head, Apps: expectApps(e), State: expectState(e, allAt(e, "1.0.0"))})
	mark("Argo CD: from bootstrap to every cluster synced")

	ctx, cancel := e.ctx()
	defer cancel()
	apps := e.Dyn.Resource(appGVR).Namespace(Namespace)
	for name, project := range map[string]string{"root": "platform", "spoke-a-root": "tenant-a"} {
		app, err := apps.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		checkField(t, app, project, "spec", "project")
	}
	for _, name := range []string{"platform", "tenant-a"} {
		if _, err := e.Dyn.Resource(projectGVR).Namespace(Namespace).Get(ctx, name, metav1.GetOptions{}); err != nil {
			t.Errorf("AppProject %s: %v", name, err)
		}
	}
	mark("check the roots' projects")
}
