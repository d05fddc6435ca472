package explain

import (
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/values"
)

// IsClusterField reports whether field names the target's cluster: or
// clusters: values (the dimensions, the revision, a node's values:, the
// inventory's facts) rather than a component's.
func IsClusterField(field string) bool {
	path, err := ParsePath(field)
	return err == nil && (path[0] == "cluster" || path[0] == "clusters")
}

// Cluster explains a field of the target's cluster: or clusters: values,
// which every component of the target sees: its value and the one place
// that sets it (config.yaml for the dimensions, the revision and a node's
// values:, the cluster's inventory file for a fact).
func Cluster(f *fleet.Fleet, ct *fleet.ClusterType, n *fleet.Node, target, component, field string) (*Result, error) {
	path, err := ParsePath(field)
	if err != nil {
		return nil, err
	}
	base := f.TargetBase(ct, n)
	v := lookup(base, path)
	if v == nil {
		return nil, notFound(base, path, component, target)
	}
	res := &Result{Target: target, ClusterType: ct.Name, Component: component, Field: values.PathString(path), Path: path, Set: true,
		Kind: v.Kind.String(), Value: strings.TrimSuffix(string(values.Encode(v)), "\n"), SetAt: v.Pos.String()}
	if v.Kind == values.Map && len(v.Keys) > 0 {
		res.Lines = Annotate(v)
	}
	layer := "config.yaml"
	if strings.HasPrefix(v.Pos.File, fleet.ClustersDir+"/") {
		layer = "inventory"
	}
	res.Chain = []Step{{File: v.Pos.File, Line: v.Pos.Line, Col: v.Pos.Col, Layer: layer, At: res.Field, Value: res.Value, Effective: true}}
	return res, nil
}
