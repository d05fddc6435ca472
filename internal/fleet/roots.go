package fleet

import (
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/strata-fleet/strata/internal/values"
)

// Roots is config.yaml's roots: key (a strata extension): what the root
// objects strata bootstrap writes are and how they sync.
//
//	roots:
//	  kind: Application             # or ApplicationSet (the default)
//	  name: "{cluster}-bootstrap-apps"
//	  project: operations
//	  syncPolicy:
//	    automated: {prune: true, selfHeal: true}
//	    syncOptions: [ServerSideApply=true]
type Roots struct {
	// SyncPolicy is the roots' spec.syncPolicy, as written (nil: strata's,
	// automated with prune and selfHeal); integers are int64, as the
	// Kubernetes API machinery reads them.
	SyncPolicy map[string]any
	Pos        values.Pos
	// Kind is the kind of a cluster's root: RootApplicationSet (also for
	// "") or RootApplication.
	Kind    string
	KindPos values.Pos
	// Name is the pattern of a cluster's root Application's name ("":
	// strata's, see [Config.RootName]); NamePos where it is set.
	Name    string
	NamePos values.Pos
	// Project is the roots' project where neither the cluster nor its
	// type names one ("": DefaultProject); ProjectPos where it is set.
	Project    string
	ProjectPos values.Pos
}

// The kinds of a cluster's root (roots.kind).
const (
	// RootApplicationSet is strata's root: an ApplicationSet that reads
	// the revision pinned in the target's rendered values.yaml at the
	// branch and makes the root Application at it, so a pin reaches the
	// cluster through Git.
	RootApplicationSet = "ApplicationSet"
	// RootApplication is a plain Application at the revision pinned when
	// it was written (ADR-006's and infractl's roots): a pin reaches the
	// cluster when the root is applied again.
	RootApplication = "Application"
)

// DefaultRootName is the name of a cluster's root when roots.name is not
// set; a spoke's root (made in its hub's Argo CD) is <cluster>-root.
const DefaultRootName = "root"

// ClusterPlaceholder is the placeholder of roots.name that stands for the
// cluster's name; the others are a layout's ({clusterType}, a dimension's).
const ClusterPlaceholder = "cluster"

// RootKind returns the kind of the clusters' roots.
func (c *Config) RootKind() string {
	if c.Roots == nil || c.Roots.Kind == "" {
		return RootApplicationSet
	}
	return c.Roots.Kind
}

// RootName returns the name of the root Application of cluster cl: roots.name
// with its placeholders replaced, else DefaultRootName for a cluster that
// runs its own Argo CD and <cluster>-root for a spoke of a hub.
func (c *Config) RootName(cl *Cluster) string {
	names := cl.Target.Path()
	return c.RootNameTemplate(cl.Hub != "", cl.Type, cl.Name, func(i int) string { return names[i] })
}

// RootNameTemplate is RootName for a cluster of type ct named name (spoke:
// it has a hub) with dim(i) for the i-th dimension's placeholder: a root
// ApplicationSet's template names a spoke's root with the labels of its
// cluster secret.
func (c *Config) RootNameTemplate(spoke bool, ct, name string, dim func(i int) string) string {
	if c.Roots == nil || c.Roots.Name == "" {
		if spoke {
			return name + "-" + DefaultRootName
		}
		return DefaultRootName
	}
	var b strings.Builder
	rest := c.Roots.Name
	for rest != "" {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			b.WriteString(rest)
			break
		}
		b.WriteString(rest[:i])
		j := strings.IndexByte(rest[i:], '}')
		switch p := rest[i+1 : i+j]; {
		case p == ClusterPlaceholder:
			b.WriteString(name)
		case p == ClusterTypePlaceholder:
			b.WriteString(ct)
		default:
			b.WriteString(dim(c.DimensionIndex(p)))
		}
		rest = rest[i+j+1:]
	}
	return b.String()
}

// checkRootName checks roots.name: a string whose placeholders are
// {cluster}, {clusterType} and the dimensions', and whose text is what a
// Kubernetes object's name may hold (each cluster's name is checked once
// the inventory is read: checkRootNames).
func (c *Config) checkRootName(n *values.Value, path []string) error {
	if n.Kind != values.String {
		return values.TypeError(n, path, values.String)
	}
	hint := "placeholders: {" + ClusterPlaceholder + "}, " + strings.TrimPrefix(c.placeholderHint(), "placeholders: ")
	bad := func(msg string) error { return &values.Error{Pos: n.Pos, Path: path, Msg: msg, Hint: hint} }
	if n.Text == "" {
		return bad("the roots' name is empty")
	}
	rest := n.Text
	for rest != "" {
		i := strings.IndexAny(rest, "{}")
		if i < 0 {
			break
		}
		if rest[i] == '}' {
			return bad(fmt.Sprintf("the roots' name %q has a '}' without its '{'", n.Text))
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			return bad(fmt.Sprintf("the roots' name %q has a '{' without its '}'", n.Text))
		}
		if p := rest[i+1 : i+j]; p != ClusterPlaceholder && c.placeholder(p) == literalPart {
			msg := fmt.Sprintf("unknown placeholder {%s} in the roots' name", p)
			if s := closest(p, append(c.placeholders(), ClusterPlaceholder)); s != "" {
				msg += fmt.Sprintf(" (did you mean {%s}?)", s)
			}
			return bad(msg)
		}
		rest = rest[i+j+1:]
	}
	return nil
}

// checkRootNames checks the name of every cluster's root: a valid object
// name, and one root per name in each Argo CD (a cluster's own and its
// spokes', made in its Argo CD).
func (f *Fleet) checkRootNames() []error {
	r := f.Config.Roots
	if r == nil || r.Name == "" {
		return nil
	}
	path := []string{"roots", "name"}
	var errs []error
	seen := map[string]*Cluster{} // by Argo CD and name
	for _, cl := range f.Clusters {
		name := f.Config.RootName(cl)
		if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
			errs = append(errs, &values.Error{Pos: r.NamePos, Path: path,
				Msg: fmt.Sprintf("the root of cluster %s would be named %q, not a valid object name: %s", cl.Name, name, msgs[0])})
			continue
		}
		argo := cl.Name
		if cl.Hub != "" {
			argo = cl.Hub
		}
		key := argo + "\x00" + name
		if prev, ok := seen[key]; ok {
			errs = append(errs, &values.Error{Pos: r.NamePos, Path: path,
				Msg:  fmt.Sprintf("the roots of clusters %s and %s would both be %s in the Argo CD of %s", prev.Name, cl.Name, name, argo),
				Hint: "put {cluster} in the name: one Argo CD holds the roots of its spokes"})
			continue
		}
		seen[key] = cl
	}
	if f.Config.RootKind() == RootApplicationSet {
		// A hub's Argo CD holds, beside its own root ApplicationSet (named
		// as its root), root-<type> per type of its spokes.
		for _, cl := range f.Clusters {
			if cl.Hub == "" {
				continue
			}
			hub := f.Cluster(cl.Hub)
			if hub != nil && hub.Hub == "" && f.Config.RootName(hub) == DefaultRootName+"-"+cl.Type {
				errs = append(errs, &values.Error{Pos: r.NamePos, Path: path,
					Msg: fmt.Sprintf("the root ApplicationSet of cluster %s would be %s, the name of the ApplicationSet that makes the roots of its spokes of type %s", hub.Name, DefaultRootName+"-"+cl.Type, cl.Type)})
				break
			}
		}
	}
	return errs
}

// syncPolicyKeys are the fields of Argo CD's SyncPolicy.
var syncPolicyKeys = []string{"automated", "syncOptions", "retry", "managedNamespaceMetadata"}

func (c *Config) parseRoots(v *values.Value) (*Roots, error) {
	if v == nil || v.Kind == values.Null {
		return nil, nil
	}
	path := []string{"roots"}
	if v.Kind != values.Map {
		return nil, values.TypeError(v, path, values.Map)
	}
	if err := knownKeys(v, path, "syncPolicy", "kind", "name", "project"); err != nil {
		return nil, err
	}
	r := &Roots{Pos: v.Pos}
	if k := v.Get("kind"); k != nil {
		kpath := append(path[:1:1], "kind")
		if k.Kind != values.String {
			return nil, values.TypeError(k, kpath, values.String)
		}
		if k.Text != RootApplicationSet && k.Text != RootApplication {
			e := &values.Error{Pos: k.Pos, Path: kpath, Msg: fmt.Sprintf("unknown kind %q of the roots", k.Text),
				Hint: "Application (a root at the revision pinned when it is applied) or ApplicationSet (strata's: the pin followed through Git)"}
			if s := closest(k.Text, []string{RootApplication, RootApplicationSet}); s != "" {
				e.Hint = fmt.Sprintf("did you mean %q? ", s) + e.Hint
			}
			return nil, e
		}
		r.Kind, r.KindPos = k.Text, k.Pos
	}
	if n := v.Get("name"); n != nil {
		if err := c.checkRootName(n, append(path[:1:1], "name")); err != nil {
			return nil, err
		}
		r.Name, r.NamePos = n.Text, n.Pos
	}
	if p := v.Get("project"); p != nil {
		var err error
		if r.Project, r.ProjectPos, err = parseProject(p, path); err != nil {
			return nil, err
		}
	}
	if sp := v.Get("syncPolicy"); sp != nil {
		spath := append(path[:1:1], "syncPolicy")
		if sp.Kind != values.Map {
			e := values.TypeError(sp, spath, values.Map)
			e.Hint = "an Application's spec.syncPolicy: {automated: {prune: true, selfHeal: true}, syncOptions: [ServerSideApply=true]}"
			return nil, e
		}
		if err := knownKeys(sp, spath, syncPolicyKeys...); err != nil {
			return nil, err
		}
		if o := sp.Get("syncOptions"); o != nil && o.Kind != values.List {
			return nil, values.TypeError(o, append(spath, "syncOptions"), values.List)
		}
		r.SyncPolicy, _ = plain(sp).(map[string]any)
	}
	return r, nil
}

// plain is v as the Kubernetes API machinery's unstructured objects hold
// it: mappings as map[string]any, lists as []any, integers as int64.
func plain(v *values.Value) any {
	switch v.Kind {
	case values.Int:
		if n, err := strconv.ParseInt(v.Text, 0, 64); err == nil {
			return n
		}
	case values.Map:
		m := make(map[string]any, len(v.Keys))
		for i, k := range v.Keys {
			m[k] = plain(v.Vals[i])
		}
		return m
	case values.List:
		l := make([]any, len(v.Items))
		for i, it := range v.Items {
			l[i] = plain(it)
		}
		return l
	}
	return v.Interface()
}
