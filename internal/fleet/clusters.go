package fleet

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"path"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

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
	Hub         string
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

// parseCluster reads one inventory file and checks it on its own.
func (c *Config) parseCluster(f *File) (*Cluster, error) {
	v, err := f.Value()
	if err != nil {
		return nil, err
	}
	hint := "a cluster file holds name, type, target and optionally server, hub, labels, annotations, externalSecret"
	if v.Kind != values.Map || len(v.Keys) == 0 {
		e := values.TypeError(v, nil, values.Map)
		e.Pos, e.Hint = firstLine(f.Path), hint
		return nil, e
	}
	if err := knownKeys(v, nil, "name", "type", "target", "server", "hub", "labels", "annotations", "externalSecret"); err != nil {
		return nil, err
	}
	cl := &Cluster{File: f, Name: strings.TrimSuffix(path.Base(f.Path), ".yaml")}
	if nv := v.Get("name"); nv != nil {
		if nv.Kind != values.String || nv.Text != cl.Name {
			return nil, &values.Error{Pos: nv.Pos, Path: []string{"name"}, Msg: fmt.Sprintf("name %s does not match the file name %s", describe(nv), path.Base(f.Path)),
				Hint: fmt.Sprintf("a cluster's file is named after it: write name: %s, or rename the file", cl.Name)}
		}
	}
	if errs := validation.IsDNS1123Label(cl.Name); len(errs) > 0 {
		return nil, &values.Error{Pos: firstLine(f.Path), Msg: fmt.Sprintf("cluster name %q: %s", cl.Name, errs[0]),
			Hint: "the name names the cluster's Secret and Applications in Kubernetes: rename the file"}
	}
	str := func(key string, required bool) (string, *values.Value, error) {
		sv := v.Get(key)
		if sv == nil {
			if required {
				return "", nil, &values.Error{Pos: firstLine(f.Path), Msg: "missing key " + key, Hint: hint}
			}
			return "", nil, nil
		}
		if sv.Kind != values.String || sv.Text == "" {
			e := values.TypeError(sv, []string{key}, values.String)
			e.Hint = "quote it if YAML reads it as another type"
			return "", nil, e
		}
		return sv.Text, sv, nil
	}
	tv, tvv, err := str("type", true)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(c.ClusterTypes, func(d ClusterTypeDecl) bool { return d.Name == tv }) {
		return nil, c.unknown(tvv, "type", "cluster type", tv, c.clusterTypeNames())
	}
	cl.Type = tv
	target, targetV, err := str("target", true)
	if err != nil {
		return nil, err
	}
	if cl.Target = c.Find(strings.Split(strings.Trim(target, "/"), "/")); cl.Target == nil || len(cl.Target.Children) > 0 || cl.Target.Depth == 0 {
		return nil, c.unknown(targetV, "target", "target", target, c.targetIDs())
	}
	if err := c.checkDimensionLabels(cl.Target, targetV); err != nil {
		return nil, err
	}
	if cl.Server, err = c.parseServer(v.Get("server")); err != nil {
		return nil, err
	}
	var hubV *values.Value
	if cl.Hub, hubV, err = str("hub", false); err != nil {
		return nil, err
	}
	if cl.Hub == cl.Name {
		return nil, values.Errorf(hubV.Pos, []string{"hub"}, "a cluster cannot be its own hub")
	}
	if cl.Hub != "" && cl.Server == "" {
		return nil, &values.Error{Pos: hubV.Pos, Path: []string{"hub"}, Msg: fmt.Sprintf("cluster %s is managed by hub %s but has no server", cl.Name, cl.Hub),
			Hint: "add server: https://<api server>:6443, where the hub's Argo CD reaches the cluster"}
	}
	if cl.Hub == "" && cl.Server != "" {
		return nil, &values.Error{Pos: v.Get("server").Pos, Path: []string{"server"}, Msg: "server is set but no hub manages the cluster",
			Hint: "a cluster without hub runs its own Argo CD, which reaches it in-cluster: remove server, or add hub: <cluster whose Argo CD manages it>"}
	}
	if cl.Labels, err = c.stringMap(v, "labels", true); err != nil {
		return nil, err
	}
	if cl.Annotations, err = c.stringMap(v, "annotations", false); err != nil {
		return nil, err
	}
	if cl.ExternalSecret, err = parseExternalSecret(v.Get("externalSecret")); err != nil {
		return nil, err
	}
	if cl.ExternalSecret != nil && cl.Hub == "" {
		return nil, values.Errorf(v.Get("externalSecret").Pos, []string{"externalSecret"},
			"externalSecret registers a cluster on its hub, but no hub manages %s", cl.Name)
	}
	return cl, nil
}

func (c *Config) unknown(v *values.Value, key, what, got string, valid []string) error {
	e := &values.Error{Pos: v.Pos, Path: []string{key}, Msg: fmt.Sprintf("unknown %s %q", what, got)}
	if s := closest(got, valid); s != "" {
		e.Hint = fmt.Sprintf("did you mean %q? (one of: %s)", s, choices(valid))
	} else {
		e.Hint = "one of: " + choices(valid)
	}
	return e
}

func (c *Config) clusterTypeNames() []string {
	var out []string
	for _, d := range c.ClusterTypes {
		out = append(out, d.Name)
	}
	return out
}

// targetIDs lists the full-depth paths of the sequence.
func (c *Config) targetIDs() []string {
	var out []string
	for _, n := range c.Root.leavesAtDepth(len(c.Dimensions)) {
		out = append(out, n.ID())
	}
	return out
}

// checkDimensionLabels checks that the target's node names can be the
// values of the identity secret's dimension labels.
func (c *Config) checkDimensionLabels(n *Node, at *values.Value) error {
	for p := n; p.Depth > 0; p = p.Parent {
		if errs := validation.IsValidLabelValue(p.Name); len(errs) > 0 {
			return &values.Error{Pos: at.Pos, Path: []string{"target"},
				Msg:  fmt.Sprintf("%s %q cannot be a label value: %s", c.Dimensions[p.Depth-1].Singular, p.Name, errs[0]),
				Hint: "the cluster's identity secret carries a label per dimension: rename the node in config.yaml"}
		}
	}
	return nil
}

func (c *Config) parseServer(sv *values.Value) (string, error) {
	if sv == nil {
		return "", nil
	}
	hint := "the URL of the cluster's API server, such as https://10.0.0.1:6443"
	if sv.Kind != values.String {
		e := values.TypeError(sv, []string{"server"}, values.String)
		e.Hint = hint
		return "", e
	}
	u, err := url.Parse(sv.Text)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", &values.Error{Pos: sv.Pos, Path: []string{"server"}, Msg: fmt.Sprintf("%q is not an http(s) URL", sv.Text), Hint: hint}
	}
	return sv.Text, nil
}

// stringMap reads labels or annotations: a mapping of qualified names to
// scalars.
func (c *Config) stringMap(v *values.Value, key string, labels bool) (map[string]string, error) {
	m := v.Get(key)
	if m == nil || m.Kind == values.Null {
		return nil, nil
	}
	if m.Kind != values.Map {
		e := values.TypeError(m, []string{key}, values.Map)
		e.Hint = key + " map names to strings: {tier: gold}"
		return nil, e
	}
	reserved := map[string]bool{SecretTypeLabel: true, ClusterTypeLabel: true, HubLabel: true}
	for _, d := range c.Dimensions {
		reserved[d.Singular] = true
	}
	out := map[string]string{}
	for i, k := range m.Keys {
		val := m.Vals[i]
		p := []string{key, k}
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return nil, &values.Error{Pos: m.KeyPosAt(i), Path: p, Msg: fmt.Sprintf("%q is not a valid %s key: %s", k, strings.TrimSuffix(key, "s"), errs[0])}
		}
		if labels && reserved[k] {
			return nil, &values.Error{Pos: m.KeyPosAt(i), Path: p, Msg: fmt.Sprintf("label %s is set by strata", k),
				Hint: "the identity secret's labels name the secret type, the cluster type and the node of each dimension: choose another key"}
		}
		if val.Kind == values.Map || val.Kind == values.List || val.Kind == values.Null {
			e := values.TypeError(val, p, values.String)
			return nil, e
		}
		if labels {
			if errs := validation.IsValidLabelValue(val.Text); len(errs) > 0 {
				return nil, &values.Error{Pos: val.Pos, Path: p, Msg: fmt.Sprintf("%q is not a valid label value: %s", val.Text, errs[0])}
			}
		}
		out[k] = val.Text
	}
	return out, nil
}

func parseExternalSecret(v *values.Value) (*ExternalSecretRef, error) {
	if v == nil {
		return nil, nil
	}
	path := []string{"externalSecret"}
	hint := "externalSecret: {store: <secret store>, key: <secret in the store>, storeKind: ClusterSecretStore, property: config}"
	if v.Kind != values.Map {
		e := values.TypeError(v, path, values.Map)
		e.Hint = hint
		return nil, e
	}
	if err := knownKeys(v, path, "store", "storeKind", "key", "property"); err != nil {
		return nil, err
	}
	r := &ExternalSecretRef{Store: stringAt(v, "store"), StoreKind: stringAt(v, "storeKind"), Key: stringAt(v, "key"), Property: stringAt(v, "property")}
	for _, req := range [][2]string{{"store", r.Store}, {"key", r.Key}} {
		if req[1] == "" {
			return nil, &values.Error{Pos: v.Pos, Path: path, Msg: "missing key " + req[0], Hint: hint}
		}
	}
	switch r.StoreKind {
	case "":
		r.StoreKind = "ClusterSecretStore"
	case "ClusterSecretStore", "SecretStore":
	default:
		return nil, &values.Error{Pos: v.Get("storeKind").Pos, Path: append(path, "storeKind"),
			Msg: fmt.Sprintf("unknown store kind %q", r.StoreKind), Hint: "one of: ClusterSecretStore, SecretStore"}
	}
	if r.Property == "" {
		r.Property = "config"
	}
	return r, nil
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
				e.Hint = "the hub is a cluster of the inventory: one of " + choices(names)
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

// Token returns the source text of the plain scalar at pos: up to the end of
// the line, a comment, or a flow indicator.
func (f *File) Token(pos values.Pos) string {
	line := 1
	start := 0
	for i := 0; i < len(f.Data) && line < pos.Line; i++ {
		if f.Data[i] == '\n' {
			line++
			start = i + 1
		}
	}
	if line != pos.Line {
		return ""
	}
	rest := f.Data[min(start+pos.Col-1, len(f.Data)):]
	end := 0
	for end < len(rest) && !strings.ContainsRune("\n\r,]}#", rune(rest[end])) {
		end++
	}
	return strings.TrimRight(string(rest[:end]), " \t")
}
