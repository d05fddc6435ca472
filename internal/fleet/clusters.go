package fleet

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/strata-fleet/strata/internal/values"
)

// ClustersDir holds the cluster inventory: one file per cluster, in any
// subdirectories (by tenant or by hub, say).
const ClustersDir = "config/clusters"

// Labels strata puts on a cluster identity secret besides one per dimension
// (its singular name): a cluster's own labels cannot use them.
const (
	SecretTypeLabel  = "argocd.argoproj.io/secret-type"
	ClusterTypeLabel = "cluster_type"
	// HubLabel marks a spoke's cluster secret on its hub with the hub's name.
	HubLabel = "strata.io/hub"
	// ProjectAnnotation carries a cluster's project on its identity secret,
	// where a hub's root ApplicationSet reads it: a cluster's own
	// annotations cannot set it (project: does).
	ProjectAnnotation = "strata.io/project"
	// DefaultProject is the project of a cluster that names none: the
	// AppProject every Argo CD creates.
	DefaultProject = "default"
	// Annotations of the identity secret besides the cluster's own, named
	// as seed 000 names them: the repository, the revision its root
	// objects follow, the cluster's name.
	RepoAnnotation        = "git_repo"
	RevisionAnnotation    = "git_revision"
	ClusterNameAnnotation = "cluster_name"
)

// Cluster is one file of the inventory, config/clusters/[...]/<name>.yaml.
type Cluster struct {
	Name string
	// Type is the cluster type, Target the full-depth node whose rendered/
	// directory the cluster runs.
	Type   string
	Target *Node
	// Server is where a hub's Argo CD reaches the cluster; "" for a cluster
	// that runs its own Argo CD (in-cluster).
	Server string
	// Hub names the cluster whose Argo CD manages this one (the central
	// model); "" when the cluster runs its own Argo CD.
	Hub string
	// Context is the kubeconfig context through which the user reaches the
	// cluster's API server (strata status --live reads a cluster's Argo
	// CD there); "" for the default rules of package live. It names a
	// context of the user's kubeconfig, never credentials.
	Context string
	// Project is the Argo CD AppProject of the cluster's root objects: its
	// file's project:, else its type's in config.yaml, else config.yaml's
	// roots.project, else DefaultProject. ProjectPos is where it was set (zero for the
	// default).
	Project     string
	ProjectPos  values.Pos
	Labels      map[string]string
	Annotations map[string]string
	// ExternalSecret, when set, registers the cluster on its hub through
	// External Secrets Operator instead of credentials given at bootstrap.
	ExternalSecret *ExternalSecretRef
	File           *File
}

// ExternalSecretRef names where a secret store holds the Argo CD cluster
// configuration (JSON: bearerToken, tlsClientConfig, ...) of a cluster.
type ExternalSecretRef struct {
	Store     string // the SecretStore or ClusterSecretStore
	StoreKind string // SecretStore or ClusterSecretStore (default)
	Key       string // the secret in the store
	Property  string // the property holding the JSON (default "config")
}

// Cluster returns the cluster called name, or nil.
func (f *Fleet) Cluster(name string) *Cluster {
	i := slices.IndexFunc(f.Clusters, func(c *Cluster) bool { return c.Name == name })
	if i < 0 {
		return nil
	}
	return f.Clusters[i]
}

// ClusterNames lists the inventory's cluster names in order.
func (f *Fleet) ClusterNames() []string {
	out := make([]string, len(f.Clusters))
	for i, c := range f.Clusters {
		out[i] = c.Name
	}
	return out
}

// Spokes returns the clusters the hub called name manages, in name order.
func (f *Fleet) Spokes(name string) []*Cluster {
	var out []*Cluster
	for _, c := range f.Clusters {
		if c.Hub == name {
			out = append(out, c)
		}
	}
	return out
}

// ClustersUnder returns the clusters whose target is n or under n.
func (f *Fleet) ClustersUnder(n *Node) []*Cluster {
	var out []*Cluster
	for _, c := range f.Clusters {
		for p := c.Target; p != nil; p = p.Parent {
			if p == n {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// ClusterRevision returns the Git revision cluster c runs: its pin, else
// the repository's revision, else "HEAD".
func (f *Fleet) ClusterRevision(c *Cluster) string {
	if r := f.Revision(c.Type, c.Target); r != "" {
		return r
	}
	return "HEAD"
}

// clusters reads the inventory. It is optional: a repository without
// config/clusters/ has no clusters.
func (l *loader) clusters() []*Cluster {
	var files []*File
	err := fs.WalkDir(l.fsys, ClustersDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == ClustersDir {
				return fs.SkipAll
			}
			return err
		}
		name := d.Name()
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			l.fail(&values.Error{Pos: values.Pos{File: p}, Msg: "symbolic link in the cluster inventory",
				Hint: "each cluster is a plain file " + ClustersDir + "/<name>.yaml"})
		case d.IsDir(), name == ".gitkeep", strings.HasSuffix(name, ".md"):
		case strings.HasSuffix(name, ".yaml"):
			files = append(files, l.readFile(p))
		default:
			hint := "each cluster is a file " + ClustersDir + "/<name>.yaml"
			if strings.HasSuffix(name, ".yml") {
				hint = "rename it " + strings.TrimSuffix(name, ".yml") + ".yaml"
			}
			l.fail(&values.Error{Pos: values.Pos{File: p}, Msg: "stray file in the cluster inventory", Hint: hint})
		}
		return nil
	})
	if err != nil {
		l.fail(readError(l.fsys, ClustersDir, err))
		return nil
	}
	var out []*Cluster
	for _, file := range files {
		c, err := l.cfg.parseCluster(file)
		if err != nil {
			l.fail(err)
			continue
		}
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(a, b *Cluster) int { return strings.Compare(a.Name, b.Name) })
	for _, err := range checkInventory(out) {
		l.fail(err)
	}
	return out
}

// checkInventory checks the clusters against each other: unique names,
// hubs that exist and run their own Argo CD, one cluster per server on a hub.
func checkInventory(cs []*Cluster) []error {
	var errs []error
	byName := map[string]*Cluster{}
	for _, c := range cs {
		if prev := byName[c.Name]; prev != nil {
			errs = append(errs, &values.Error{Pos: firstLine(c.File.Path), Msg: fmt.Sprintf("cluster %q is declared twice", c.Name),
				Also: []values.Pos{firstLine(prev.File.Path)}, Hint: "cluster names are unique across " + ClustersDir + "/: rename or remove one file"})
			continue
		}
		byName[c.Name] = c
	}
	servers := map[[2]string]*Cluster{}
	for _, c := range cs {
		if c.Hub == "" {
			continue
		}
		hubV := c.value("hub")
		hub := byName[c.Hub]
		switch {
		case hub == nil:
			e := &values.Error{Pos: hubV.Pos, Path: []string{"hub"}, Msg: fmt.Sprintf("unknown hub %q", c.Hub)}
			names := slices.Sorted(maps.Keys(byName))
			if s := closest(c.Hub, names); s != "" {
				e.Hint = fmt.Sprintf("did you mean %q? (a cluster of %s/)", s, ClustersDir)
			} else {
				e.Hint = "the hub is a cluster of the inventory: " + didYouMean(c.Hub, names)
			}
			errs = append(errs, e)
			continue
		case hub.Hub != "":
			errs = append(errs, &values.Error{Pos: hubV.Pos, Path: []string{"hub"},
				Msg:  fmt.Sprintf("hub %s is itself managed by hub %s", hub.Name, hub.Hub),
				Also: []values.Pos{hub.value("hub").Pos}, Hint: "a hub runs its own Argo CD: choose a cluster without hub"})
			continue
		}
		key := [2]string{c.Hub, strings.TrimSuffix(c.Server, "/")}
		if prev := servers[key]; prev != nil {
			errs = append(errs, &values.Error{Pos: c.value("server").Pos, Path: []string{"server"},
				Msg:  fmt.Sprintf("clusters %s and %s have the same server on hub %s", prev.Name, c.Name, c.Hub),
				Also: []values.Pos{prev.value("server").Pos}, Hint: "Argo CD knows a cluster by its server URL: each cluster of a hub needs its own"})
			continue
		}
		servers[key] = c
	}
	return errs
}

// value returns the decoded value of key in the cluster's file.
func (c *Cluster) value(key string) *values.Value {
	v, _ := c.File.Value()
	if kv := v.Get(key); kv != nil {
		return kv
	}
	return &values.Value{Pos: firstLine(c.File.Path)}
}
