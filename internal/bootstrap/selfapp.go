package bootstrap

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/strata-fleet/strata/internal/fleet"
)

// selfApp returns Argo CD's self-management Application of cluster c: the
// Application called opts.SelfApp that c's target renders, as Argo CD's Helm
// render of the cluster's rendered/ directory (with the root's cluster
// values) makes it, or nil when the target has none.
func (b *builder) selfApp(c *fleet.Cluster) (*unstructured.Unstructured, error) {
	if b.chart == nil {
		return nil, nil
	}
	objs, err := b.argoObjects(c, b.opts.SelfApp)
	if err != nil {
		return nil, err
	}
	o := objs[b.opts.SelfApp]
	if o == nil || o.GetKind() != "Application" {
		return nil, nil
	}
	if o.GetNamespace() == "" {
		o.SetNamespace(b.opts.Namespace)
	}
	return o, nil
}

// selfAppProject is the project use of the self-management Application
// self of cluster c: the project its definition names.
func selfAppProject(c *fleet.Cluster, self *unstructured.Unstructured) projectUse {
	p, _, _ := unstructured.NestedString(self.Object, "spec", "project")
	if p == "" {
		p = fleet.DefaultProject
	}
	return projectUse{project: p, by: fmt.Sprintf("the self-management Application %s of cluster %s", self.GetName(), c.Name)}
}
