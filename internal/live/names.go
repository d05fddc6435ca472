package live

import (
	"strings"

	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/render"
)

// nameEnv resolves what Helm templates remain in a rendered name
// ("{{ .Values.cluster.name }}-monitoring") as Argo CD's render of the
// cluster's root Application does: with the cluster values strata's
// bootstrap hands it (cluster.name, one key per dimension, and the
// revision).
type nameEnv struct {
	f    *fleet.Fleet
	c    *fleet.Cluster
	vals common.Values
}

func newNameEnv(f *fleet.Fleet, c *fleet.Cluster) *nameEnv { return &nameEnv{f: f, c: c} }

func (e *nameEnv) resolve(name string) string {
	if !strings.Contains(name, "{{") {
		return name
	}
	if e.vals == nil {
		e.vals = common.Values{
			"Values":       clusterValues(e.f, e.c),
			"Capabilities": common.DefaultCapabilities,
			"Release":      map[string]any{"Name": e.f.Config.RootName(e.c), "Namespace": DefaultNamespace, "IsInstall": true, "Revision": 1, "Service": "Helm"},
			"Chart":        map[string]any{"Name": e.c.Name, "Version": "0.1.0"},
		}
	}
	c := &chart.Chart{
		Metadata:  &chart.Metadata{APIVersion: "v2", Name: "name", Version: "0.1.0"},
		Templates: []*common.File{{Name: "templates/name", Data: []byte(name)}},
	}
	out, err := render.RenderChart(c, e.vals, e.f.Config.Render.Limits, "")
	if err != nil {
		return name
	}
	return strings.TrimSpace(out["name/templates/name"])
}

// clusterValues are the Helm values strata's bootstrap hands the root
// Application of cluster c (helm.valuesObject): cluster.name, one key per
// dimension, and the revision.
func clusterValues(f *fleet.Fleet, c *fleet.Cluster) map[string]any {
	cl := map[string]any{"name": c.Name, "revision": f.ClusterRevision(c)}
	for i, d := range f.Config.Dimensions {
		cl[d.Singular] = c.Target.Path()[i]
	}
	return map[string]any{"cluster": cl}
}

// NameResolver returns what Argo CD names a rendered resource of cluster c
// (name as rendered): what Helm templates remain in it resolved with the
// cluster values of c's root Application.
func NameResolver(f *fleet.Fleet, c *fleet.Cluster) func(name string) string {
	return newNameEnv(f, c).resolve
}
