package fleet

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/strata-fleet/strata/internal/values"
)

// ConfigPath is where the fleet configuration lives in a repository.
const ConfigPath = "config/config.yaml"

// Config is config/config.yaml.
type Config struct {
	// Dimensions in order, outermost first.
	Dimensions []Dimension
	// Root is the virtual root of the sequence; its children are the nodes of
	// the first dimension.
	Root *Node
	// ClusterTypes in declaration order.
	ClusterTypes []ClusterTypeDecl
	// PromotionLevel is the dimension promote works at by default ("" when
	// not configured).
	PromotionLevel string
	// Repository is where Argo CD pulls this repository from, when declared.
	Repository *Repository
	File       *File
}

// Dimension is one level of the hierarchy.
type Dimension struct {
	Name     string // as declared: "environments"
	Singular string // the key under cluster: in values: "environment"
}

// ClusterTypeDecl is a cluster type as config.yaml declares it.
type ClusterTypeDecl struct {
	Name string
	Pos  values.Pos
}

// Repository names the Git repository Argo CD pulls, and the revision that
// unpinned targets follow.
type Repository struct {
	URL      string
	Revision string
}

// Gate values of a node's promotion key.
const (
	GateManual    = "manual"
	GateAutomated = "automated"
)

// Node is a node of the sequence.
type Node struct {
	Name     string
	Depth    int // 1 for the first dimension; 0 for the root
	Parent   *Node
	Children []*Node
	// Gate is "manual", "automated" or "" (not set).
	Gate string
	// Revision pins the Git revision of the clusters under this node, when set.
	Revision *Revision
	Pos      values.Pos
}

// Revision is a pin: one revision for every cluster type, or one per type.
type Revision struct {
	All    string
	ByType map[string]string
	Pos    values.Pos
}

// For returns the pinned revision for a cluster type, or "".
func (r *Revision) For(clusterType string) string {
	if r == nil {
		return ""
	}
	if r.ByType != nil {
		return r.ByType[clusterType]
	}
	return r.All
}

// Path is the node's names from the first dimension down.
func (n *Node) Path() []string {
	if n == nil || n.Depth == 0 {
		return nil
	}
	return append(n.Parent.Path(), n.Name)
}

// ID is the node's path joined with slashes, "" for the root.
func (n *Node) ID() string { return strings.Join(n.Path(), "/") }

// Child returns the child called name, or nil.
func (n *Node) Child(name string) *Node {
	for _, c := range n.Children {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Walk calls fn for n's descendants in pre-order (rollout order).
func (n *Node) Walk(fn func(*Node)) {
	for _, c := range n.Children {
		fn(c)
		c.Walk(fn)
	}
}

// Leaves returns the full-depth nodes under n (n itself if it is one), in
// rollout order.
func (n *Node) Leaves() []*Node {
	if len(n.Children) == 0 {
		return []*Node{n}
	}
	var out []*Node
	for _, c := range n.Children {
		out = append(out, c.Leaves()...)
	}
	return out
}

// Find returns the node at path, or nil.
func (c *Config) Find(path []string) *Node {
	n := c.Root
	for _, name := range path {
		if n = n.Child(name); n == nil {
			return nil
		}
	}
	return n
}

// DimensionIndex returns the index of the dimension called name (plural or
// singular), or -1.
func (c *Config) DimensionIndex(name string) int {
	return slices.IndexFunc(c.Dimensions, func(d Dimension) bool { return d.Name == name || d.Singular == name })
}

var revisionRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/+-]*$`)

// CheckRevision reports whether s is a usable Git revision: a full or short
// commit hash, a tag or a branch name.
func CheckRevision(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("revision is empty")
	case !revisionRE.MatchString(s), strings.Contains(s, ".."), strings.Contains(s, "//"),
		strings.HasSuffix(s, "/"), strings.HasSuffix(s, ".lock"), strings.HasSuffix(s, "."):
		return fmt.Errorf("%q is not a valid Git revision (want a commit hash, tag or branch name)", s)
	}
	return nil
}

// singular derives the values key of a dimension the way the reference
// does: trailing "s" characters removed.
func singular(name string) string {
	s := strings.TrimRight(name, "s")
	if s == "" {
		return name
	}
	return s
}
