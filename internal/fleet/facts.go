package fleet

import (
	"fmt"
	"slices"

	"github.com/strata-fleet/strata/internal/values"
)

// Cluster facts: what a target's templates know of the clusters that run it
// (docs/facts.md).
//
//	clusters:
//	  facts: true                 # the inventory in the values (default false)
//	  runtime:                    # keys written onto the cluster Secrets at run time
//	    labels: [environment_tier]
//	    annotations: [aws_account_id, aws_vpc_id]
//
// With facts on, the values of the target of cluster type ct under node n
// hold, besides cluster: {<dimension>: ..., revision: ...}:
//
//   - clusters: the inventory's clusters of type ct whose target is n, in
//     name order, each its file as written (name always set);
//   - when there is exactly one, its file's keys in cluster: as well
//     (.Values.cluster.name, .Values.cluster.server, .Values.cluster.labels...).
//
// A sequence node's values: go into cluster: of every target under it, a
// deeper node's over a shallower one's, for every component and whether
// facts are on or not.

// ClustersConfig is config.yaml's clusters: mapping.
type ClustersConfig struct {
	// Facts puts the inventory's clusters in their targets' values.
	Facts bool
	// RuntimeLabels and RuntimeAnnotations are the keys something other
	// than strata (Terraform, a controller) writes onto cluster Secrets,
	// which templates may reference through clusterLabel and
	// clusterAnnotation although no inventory file declares them.
	RuntimeLabels      []string
	RuntimeAnnotations []string
	Pos                values.Pos
}

// factKeys are the keys of an inventory file, which facts put in cluster:.
var factKeys = []string{"name", "type", "target", "server", "hub", "context", "project", "labels", "annotations", "externalSecret"}

// reservedClusterKeys are the keys of cluster: strata sets besides the
// dimensions: a node's values: cannot set them.
var reservedClusterKeys = []string{"revision", "revisions"}

func parseClusters(v *values.Value) (ClustersConfig, error) {
	var cc ClustersConfig
	if v == nil || v.Kind == values.Null {
		return cc, nil
	}
	path := []string{"clusters"}
	if v.Kind != values.Map {
		return cc, values.TypeError(v, path, values.Map)
	}
	if err := knownKeys(v, path, "facts", "runtime"); err != nil {
		return cc, err
	}
	cc.Pos = v.Pos
	if f := v.Get("facts"); f != nil {
		if f.Kind != values.Bool {
			e := values.TypeError(f, append(path, "facts"), values.Bool)
			e.Hint = "facts: true puts the inventory's clusters in their targets' values (.Values.cluster.name, .Values.clusters)"
			return cc, e
		}
		cc.Facts = f.Text == "true"
	}
	if r := v.Get("runtime"); r != nil && r.Kind != values.Null {
		rpath := append(path[:1:1], "runtime")
		if r.Kind != values.Map {
			return cc, values.TypeError(r, rpath, values.Map)
		}
		if err := knownKeys(r, rpath, "labels", "annotations"); err != nil {
			return cc, err
		}
		var err error
		if cc.RuntimeLabels, err = keyList(r.Get("labels"), append(rpath[:2:2], "labels")); err != nil {
			return cc, err
		}
		if cc.RuntimeAnnotations, err = keyList(r.Get("annotations"), append(rpath[:2:2], "annotations")); err != nil {
			return cc, err
		}
	}
	return cc, nil
}

// keyList reads a list of label or annotation keys.
func keyList(v *values.Value, path []string) ([]string, error) {
	if v == nil || v.Kind == values.Null {
		return nil, nil
	}
	if v.Kind != values.List {
		e := values.TypeError(v, path, values.List)
		e.Hint = "list the keys: [aws_account_id, aws_vpc_id]"
		return nil, e
	}
	var out []string
	for i, it := range v.Items {
		if it.Kind != values.String || it.Text == "" {
			return nil, values.TypeError(it, append(path[:len(path):len(path)], fmt.Sprint(i)), values.String)
		}
		if slices.Contains(out, it.Text) {
			return nil, values.Errorf(it.Pos, append(path[:len(path):len(path)], fmt.Sprint(i)), "key %q is listed twice", it.Text)
		}
		out = append(out, it.Text)
	}
	return out, nil
}

// parseNodeValues reads a node's values: mapping, whose keys go into
// cluster: of the targets under the node.
func (c *Config) parseNodeValues(v *values.Value, path []string) (*values.Value, error) {
	if v.Kind == values.Null {
		return nil, nil
	}
	if v.Kind != values.Map {
		e := values.TypeError(v, path, values.Map)
		e.Hint = "values: is a mapping; its keys are values of every target under the node, as .Values.cluster.<key>"
		return nil, e
	}
	for i, k := range v.Keys {
		if err := c.checkClusterKey(k); err != nil {
			return nil, &values.Error{Pos: v.KeyPosAt(i), Path: append(path[:len(path):len(path)], k), Msg: err.Error(),
				Hint: "a node's values go into .Values.cluster beside the dimensions, the revision and the inventory's facts: choose another key"}
		}
	}
	return v, nil
}

// checkClusterKey reports a key of a node's values: that cluster: already
// has.
func (c *Config) checkClusterKey(k string) error {
	if i := slices.IndexFunc(c.Dimensions, func(d Dimension) bool { return d.Singular == k }); i >= 0 {
		return fmt.Errorf("key %q is the dimension %s's, which cluster: holds", k, c.Dimensions[i].Name)
	}
	if slices.Contains(reservedClusterKeys, k) {
		return fmt.Errorf("key %q is strata's: cluster.%s is the target's %s", k, k, k)
	}
	if slices.Contains(factKeys, k) {
		return fmt.Errorf("key %q is a cluster fact's (cluster.%s, from the inventory)", k, k)
	}
	return nil
}

// checkFactKeys refuses facts on a configuration whose dimensions would
// share a key of cluster: with a fact.
func (c *Config) checkFactKeys() error {
	if !c.Clusters.Facts {
		return nil
	}
	for _, d := range c.Dimensions {
		if slices.Contains(factKeys, d.Singular) {
			return &values.Error{Pos: c.Clusters.Pos, Path: []string{"clusters", "facts"},
				Msg:  fmt.Sprintf("the dimension %s's key cluster.%s is also a cluster fact's", d.Name, d.Singular),
				Hint: fmt.Sprintf("give the dimension another singular in dimensions: {name: %s, singular: ...}", d.Name)}
		}
	}
	return nil
}

// ClustersAt returns the inventory's clusters of type ct whose target is n,
// in name order.
func (f *Fleet) ClustersAt(ct string, n *Node) []*Cluster {
	f.byTargetOnce.Do(func() {
		f.byTarget = map[string][]*Cluster{}
		for _, c := range f.Clusters {
			k := c.Type + "\x00" + c.Target.ID()
			f.byTarget[k] = append(f.byTarget[k], c)
		}
	})
	return f.byTarget[ct+"\x00"+n.ID()]
}

// Facts returns a cluster's facts: its file as written, name always set.
func (c *Cluster) Facts() *values.Value {
	v, _ := c.File.Value() // parsed already: Load checked it
	if v.Get("name") != nil {
		return v
	}
	out := values.NewMap(v.Pos)
	out.Set("name", values.NewString(c.Name, firstLine(c.File.Path)))
	return values.Merge(out, v)
}

// clustersList returns the clusters: value of the target of type ct under n.
func (f *Fleet) clustersList(ct string, n *Node) *values.Value {
	cs := f.ClustersAt(ct, n)
	pos := values.Pos{File: ClustersDir}
	if len(cs) > 0 {
		pos = firstLine(cs[0].File.Path)
	}
	out := &values.Value{Kind: values.List, Pos: pos, Items: make([]*values.Value, 0, len(cs))}
	for _, c := range cs {
		out.Items = append(out.Items, c.Facts())
	}
	return out
}

// nodeChainValues returns the values: of the nodes from the first dimension
// down to n, merged, or nil when none has any.
func nodeChainValues(n *Node) *values.Value {
	var chain []*values.Value
	for p := n; p != nil && p.Depth > 0; p = p.Parent {
		if p.Values != nil {
			chain = append(chain, p.Values)
		}
	}
	var out *values.Value
	for i := len(chain) - 1; i >= 0; i-- {
		out = values.Merge(out, chain[i])
	}
	return out
}

// ClusterFiles returns the inventory files the values of the target of
// type ct under n depend on: none unless facts are on or a label chooses a
// named revision.
func (f *Fleet) ClusterFiles(ct string, n *Node) []*File {
	if !f.Config.Clusters.Facts && !f.Config.labelRevisions() {
		return nil
	}
	var out []*File
	for _, c := range f.ClustersAt(ct, n) {
		out = append(out, c.File)
	}
	return out
}

// TargetBase returns what a target's values start with, before the
// components: cluster:, and clusters: when facts are on.
func (f *Fleet) TargetBase(ct *ClusterType, n *Node) *values.Value {
	out := values.NewMap(values.Pos{File: ConfigPath})
	out.Set("cluster", f.ClusterBlock(ct, n))
	if f.Config.Clusters.Facts {
		out.Set("clusters", f.clustersList(ct.Name, n))
	}
	return out
}

// SecretKeys returns the label and annotation keys declared for the
// inventory's cluster Secrets: those strata's bootstrap writes (one label
// per dimension, the cluster type, the secret type, the hub; the
// repository, revision, name and project annotations), every inventory
// cluster's own, and config.yaml's clusters.runtime. ok is false when the
// fleet declares nothing to check against (no inventory, no runtime keys).
func (f *Fleet) SecretKeys() (labels, annotations map[string]bool, ok bool) {
	rt := f.Config.Clusters
	if len(f.Clusters) == 0 && len(rt.RuntimeLabels) == 0 && len(rt.RuntimeAnnotations) == 0 {
		return nil, nil, false
	}
	labels = map[string]bool{SecretTypeLabel: true, ClusterTypeLabel: true, HubLabel: true}
	for _, d := range f.Config.Dimensions {
		labels[d.Singular] = true
	}
	annotations = map[string]bool{RepoAnnotation: true, RevisionAnnotation: true, ClusterNameAnnotation: true, ProjectAnnotation: true}
	for _, c := range f.Clusters {
		for k := range c.Labels {
			labels[k] = true
		}
		for k := range c.Annotations {
			annotations[k] = true
		}
	}
	for _, k := range rt.RuntimeLabels {
		labels[k] = true
	}
	for _, k := range rt.RuntimeAnnotations {
		annotations[k] = true
	}
	return labels, annotations, true
}
