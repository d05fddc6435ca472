package fleet

import (
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/strata-fleet/strata/internal/values"
)

// parseCluster reads one inventory file and checks it on its own.
func (c *Config) parseCluster(f *File) (*Cluster, error) {
	v, err := f.Value()
	if err != nil {
		return nil, err
	}
	hint := "a cluster file holds name, type, target and optionally server, hub, context, project, labels, annotations, externalSecret"
	if v.Kind != values.Map || len(v.Keys) == 0 {
		e := values.TypeError(v, nil, values.Map)
		e.Pos, e.Hint = firstLine(f.Path), hint
		return nil, e
	}
	if err := knownKeys(v, nil, "name", "type", "target", "server", "hub", "context", "project", "labels", "annotations", "externalSecret"); err != nil {
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
	decl := slices.IndexFunc(c.ClusterTypes, func(d ClusterTypeDecl) bool { return d.Name == tv })
	if decl < 0 {
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
	if d := c.ClusterTypes[decl]; targetsOf([]*Node{cl.Target}, d.At) == nil {
		return nil, &values.Error{Pos: targetV.Pos, Path: []string{"target"}, Also: []values.Pos{d.AtPos},
			Msg:  fmt.Sprintf("cluster type %q does not exist at %q", tv, target),
			Hint: fmt.Sprintf("%q exists only under %s (config.yaml's at:)", tv, choices(nodeIDs(d.At)))}
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
	if cl.Context, _, err = str("context", false); err != nil {
		return nil, err
	}
	if cl.Project, cl.ProjectPos, err = c.clusterProject(v, c.ClusterTypes[decl]); err != nil {
		return nil, err
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
	e.Hint = didYouMean(got, valid)
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
		if !labels && k == ProjectAnnotation {
			return nil, &values.Error{Pos: m.KeyPosAt(i), Path: p, Msg: fmt.Sprintf("annotation %s is set by strata", k),
				Hint: "it carries the cluster's project: write project: <AppProject> in the cluster's file instead"}
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

// clusterProject is the project of the cluster whose file holds v and whose
// type is d: its own project:, else its type's, else roots.project, else
// DefaultProject.
func (c *Config) clusterProject(v *values.Value, d ClusterTypeDecl) (string, values.Pos, error) {
	p, pos, err := parseProject(v.Get("project"), nil)
	switch {
	case err != nil:
		return "", values.Pos{}, err
	case p != "":
		return p, pos, nil
	case d.Project != "":
		return d.Project, d.ProjectPos, nil
	case c.Roots != nil && c.Roots.Project != "":
		return c.Roots.Project, c.Roots.ProjectPos, nil
	}
	return DefaultProject, values.Pos{}, nil
}

// parseProject reads a project: key (of a cluster type at path, or of a
// cluster when path is nil): the name of an Argo CD AppProject, so a
// Kubernetes object name as well as a strata name.
func parseProject(v *values.Value, path []string) (string, values.Pos, error) {
	if v == nil {
		return "", values.Pos{}, nil
	}
	path = append(path[:len(path):len(path)], "project")
	hint := "the name of an Argo CD AppProject, such as project: tenant1 (lowercase letters, digits, '-' and '.')"
	if v.Kind != values.String {
		e := values.TypeError(v, path, values.String)
		e.Hint = hint
		return "", values.Pos{}, e
	}
	if err := checkName(v.Text); err != nil {
		return "", values.Pos{}, &values.Error{Pos: v.Pos, Path: path, Msg: err.Error(), Hint: hint}
	}
	if errs := validation.IsDNS1123Subdomain(v.Text); len(errs) > 0 {
		return "", values.Pos{}, &values.Error{Pos: v.Pos, Path: path, Msg: fmt.Sprintf("project %q is not a valid AppProject name: %s", v.Text, errs[0]), Hint: hint}
	}
	return v.Text, v.Pos, nil
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
