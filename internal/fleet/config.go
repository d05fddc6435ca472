package fleet

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

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
	// Render is config.yaml's render: settings (a strata extension).
	Render RenderConfig
	// Layout is where each target's output goes (layout:, a strata
	// extension); nil for the default, rendered/<type>/<node path>.
	Layout *Layout
	// Roots is how the root objects sync (roots:, a strata extension); nil
	// for strata's.
	Roots *Roots
	// Rollout is the top-level rollout: key, the defaults of every node.
	Rollout *RolloutSettings
	// Notifications are where the rollout runner sends step events.
	Notifications []Notification
	// Clusters is config.yaml's clusters: (cluster facts, facts.go).
	Clusters ClustersConfig
	// Revisions are config.yaml's named revisions (revisions.go).
	Revisions []NamedRevision
	// Charts are config.yaml's chart directories, whose charts are
	// components (charts.go).
	Charts []ChartDir
	// Global is config.yaml's global: true: config/global/ is a layer
	// under every cluster type (charts.go).
	Global bool
	File   *File
}

// Dimension is one level of the hierarchy.
type Dimension struct {
	Name     string // as declared: "environments"
	Singular string // the key under cluster: in values: "environment"
}

// ClusterTypeDecl is a cluster type as config.yaml declares it.
type ClusterTypeDecl struct {
	Name string
	// At lists the nodes under which the cluster type exists (its at:
	// key); nil when it exists at every target.
	At    []*Node
	AtPos values.Pos
	// Project is the Argo CD AppProject of the root objects of the
	// cluster type's clusters (its project: key); "" when not set.
	Project    string
	ProjectPos values.Pos
	Pos        values.Pos
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
	// Revisions pins named revisions (config.yaml's revisions:) under
	// this node, by name; nil when absent (revisions.go).
	Revisions map[string]*Revision
	// Rollout is the node's rollout: key (soak, timeout, checks), for it
	// and the nodes under it; see Config.RolloutAt.
	Rollout *RolloutSettings
	// Values is the node's values: mapping, nil when absent: keys of
	// cluster: for every target under the node (facts.go).
	Values *values.Value
	Pos    values.Pos

	id atomic.Pointer[string] // ID, once asked for
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

// ID is the node's path joined with slashes, "" for the root. It is
// computed once (a render asks for it per target, component and level).
func (n *Node) ID() string {
	if id := n.id.Load(); id != nil {
		return *id
	}
	id := strings.Join(n.Path(), "/")
	n.id.Store(&id)
	return id
}

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

// CheckRevision reports whether s is a usable Git revision: a full commit
// hash (40 hexadecimal digits, or 64 for SHA-256 repositories), a short one,
// a tag or a branch name (git check-ref-format's rules), or HEAD.
func CheckRevision(s string) error {
	bad := func(why string) error {
		return fmt.Errorf("%q is not a valid Git revision: %s (want a commit hash, a tag or a branch name)", s, why)
	}
	if s == "" {
		return fmt.Errorf("revision is empty (want a commit hash, a tag or a branch name)")
	}
	if hexDigits(s) {
		if len(s) > 40 && len(s) != 64 {
			return bad(fmt.Sprintf("%d hexadecimal digits: a full commit hash has 40 (64 with SHA-256)", len(s)))
		}
		return nil
	}
	if (len(s) == 40 || len(s) == 64) && alnum(s) {
		i := strings.IndexFunc(s, func(r rune) bool { return !isHex(r) })
		return bad(fmt.Sprintf("it has the length of a full commit hash, but %q is not a hexadecimal digit", s[i]))
	}
	if i := strings.IndexFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f || strings.ContainsRune("~^:?*[\\", r) }); i >= 0 {
		return bad(fmt.Sprintf("%q is not allowed in a revision", s[i]))
	}
	switch {
	case s == "@":
		return bad("@ alone is not a name")
	case strings.HasPrefix(s, "-"):
		return bad("it starts with '-'")
	case strings.HasPrefix(s, "/") || strings.HasSuffix(s, "/") || strings.Contains(s, "//"):
		return bad("empty path component")
	case strings.Contains(s, ".."):
		return bad("'..' is not allowed")
	case strings.Contains(s, "@{"):
		return bad("'@{' is not allowed")
	case strings.HasSuffix(s, "."):
		return bad("it ends with '.'")
	}
	for _, part := range strings.Split(s, "/") {
		if strings.HasPrefix(part, ".") {
			return bad("a path component starts with '.'")
		}
		if strings.HasSuffix(part, ".lock") {
			return bad("a path component ends with .lock")
		}
	}
	return nil
}

func isHex(r rune) bool { return '0' <= r && r <= '9' || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F' }

func hexDigits(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return !isHex(r) }) < 0
}

func alnum(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return !('0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') }) < 0
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

// Branch is the revision the clusters' root objects follow and strata's
// bootstrap writes as the cluster Secret's git_revision: the repository's
// revision, else HEAD.
func (c *Config) Branch() string {
	if c.Repository != nil && c.Repository.Revision != "" {
		return c.Repository.Revision
	}
	return "HEAD"
}
