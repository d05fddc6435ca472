package importer

import (
	"encoding/base64"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/strata-fleet/strata/internal/hydrate"
	"github.com/strata-fleet/strata/internal/values"
)

// The cluster Secrets of the eks-fleet format. A spoke's Secret is made by
// the repository itself: an ApplicationSet of fleet/fleet-bootstrap/ (the
// repository's fleet-hub-secrets) reads the member files with a git files
// generator and gives, per member, an Application of a chart (its
// fleet-secret) whose ExternalSecret writes the cluster Secret, with the
// labels and annotations its target template holds. The import does the
// same: it evaluates those ApplicationSets for the hub's Secret, renders
// each Application's chart with Helm's engine (value files of a $ref
// source read from the imported tree) and reads the Secret's name, labels
// and annotations from the ExternalSecret's template. What the template
// takes from the external store at run time ({{ .metadata }}) the
// repository does not say: the team gives it, and the hub's Secret, which
// Terraform writes, as Secret manifests (--cluster-secret FILE).

// SecretFile is a file of cluster Secrets given with the import: Kubernetes
// Secret manifests (kubectl get secret -o yaml) of clusters whose Secret no
// file of the repository says.
type SecretFile struct {
	File string // as errors name it
	Data []byte
}

// givenSecret is a cluster Secret of a SecretFile.
type givenSecret struct {
	clusterSecret
	at string
}

const secretTypeLabel = "argocd.argoproj.io/secret-type"

// readGivenSecrets reads the cluster Secrets of files: each document a v1
// Secret whose data or stringData name the cluster (else its
// metadata.name), with string labels and annotations.
func readGivenSecrets(files []SecretFile) ([]givenSecret, error) {
	var out []givenSecret
	seen := map[string]string{}
	for _, f := range files {
		docs, _, err := readDocuments(f.File, f.Data)
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			s, err := givenSecretOf(d)
			if err != nil {
				return nil, err
			}
			if prev, ok := seen[s.Name]; ok {
				return nil, &values.Error{Pos: posOf(s.at), Also: []values.Pos{posOf(prev)}, Msg: "a second Secret of cluster " + s.Name}
			}
			seen[s.Name] = s.at
			out = append(out, s)
		}
	}
	return out, nil
}

func givenSecretOf(d document) (givenSecret, error) {
	pos := values.Pos{File: d.file, Line: d.node.Line, Col: d.node.Column}
	if str(d.node, "kind") != "Secret" || str(d.node, "apiVersion") != "v1" {
		return givenSecret{}, &values.Error{Pos: pos, Msg: "not a cluster Secret (apiVersion: v1, kind: Secret)"}
	}
	md := get(d.node, "metadata")
	s := givenSecret{at: d.at()}
	for key, into := range map[string]*map[string]string{"labels": &s.Labels, "annotations": &s.Annotations} {
		if v := get(md, key); v != nil && !isNull(v) {
			m, err := stringMapOf(d.file, key, v)
			if err != nil {
				return givenSecret{}, err
			}
			*into = m
		}
	}
	var err error
	if s.Name, err = secretData(d, "name"); err != nil {
		return givenSecret{}, err
	}
	if s.Server, err = secretData(d, "server"); err != nil {
		return givenSecret{}, err
	}
	if s.Name == "" {
		s.Name = str(md, "name")
	}
	if s.Name == "" {
		return givenSecret{}, &values.Error{Pos: pos, Msg: "a cluster Secret without a name (stringData.name, data.name or metadata.name)"}
	}
	if s.Labels == nil {
		s.Labels = map[string]string{}
	}
	s.Labels[secretTypeLabel] = "cluster"
	return s, nil
}

// secretData is the Secret's stringData key, else its data key decoded.
func secretData(d document, key string) (string, error) {
	if v := str(get(d.node, "stringData"), key); v != "" {
		return v, nil
	}
	v := get(get(d.node, "data"), key)
	if v == nil || isNull(v) {
		return "", nil
	}
	b, err := base64.StdEncoding.DecodeString(v.Value)
	if err != nil {
		return "", &values.Error{Pos: values.Pos{File: d.file, Line: v.Line, Col: v.Column}, Path: []string{"data", key}, Msg: "not base64: " + err.Error()}
	}
	return string(b), nil
}

// derivedSecret is a member's cluster Secret as the repository's chart
// writes it.
type derivedSecret struct {
	server              string // "" when known at run time only
	labels, annotations map[string]string
	// runtime lists the template's parts taken from the external store.
	runtime []string
	// by says what made it: the Application, its ApplicationSet's file:line.
	by, at string
}

// deriveSecrets evaluates the ApplicationSets of fleet/fleet-bootstrap/
// that read the member files, for the hubs' Secrets, and returns per
// cluster name the Secret their charts' ExternalSecrets write.
func deriveSecrets(fsys fs.FS, dir string, opts Options, hubs []clusterSecret) (map[string]*derivedSecret, error) {
	out := map[string]*derivedSecret{}
	if len(hubs) == 0 {
		return out, nil
	}
	root := path.Join(dir, eksFleetBootstrapDir)
	entries, err := fs.ReadDir(fsys, root)
	if err != nil {
		return out, nil //nolint:nilerr // no fleet-bootstrap directory: no Secret is derived
	}
	for _, e := range entries {
		file := path.Join(root, e.Name())
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		data, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, err
		}
		if !strings.Contains(string(data), path.Base(eksMembersDir)+"/") {
			continue // reads no member file
		}
		docs, _, err := readDocuments(file, data)
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			if str(d.node, "kind") != "ApplicationSet" {
				continue
			}
			apps, _, err := evalAppSet(d.node, d.at(), fsys, dir, opts.show, hubs)
			if err != nil {
				return nil, err
			}
			for _, a := range apps {
				if err := secretOfApplication(fsys, dir, a.App, d.at(), out); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, nil
}

// secretOfApplication renders app's chart sources and records the cluster
// Secrets their ExternalSecrets write.
func secretOfApplication(fsys fs.FS, dir string, app map[string]any, at string, out map[string]*derivedSecret) error {
	md, _ := app["metadata"].(map[string]any)
	name, _ := md["name"].(string)
	spec, _ := app["spec"].(map[string]any)
	ns, _ := asMap(spec["destination"])["namespace"].(string)
	sources := asList(spec["sources"])
	if s, ok := spec["source"].(map[string]any); ok {
		sources = append(sources, s)
	}
	refs := map[string]bool{}
	for _, s := range sources {
		if r, _ := asMap(s)["ref"].(string); r != "" {
			refs[r] = true
		}
	}
	for _, s := range sources {
		src := asMap(s)
		p, _ := src["path"].(string)
		if p == "" || src["ref"] != nil || !hydrate.IsFile(fsys, path.Join(dir, p, "Chart.yaml")) {
			continue
		}
		chartDir := path.Join(dir, p)
		rel := hydrate.ReleaseOf(fromTree(src, p, refs), name, ns)
		objs, skip, err := hydrate.HelmChart(fsys, chartDir, rel)
		if err != nil || skip != "" {
			return &values.Error{Pos: posOf(at), Msg: fmt.Sprintf("the Application %s renders chart %s, which could make a cluster Secret: %v%s", name, p, err, skip)}
		}
		for _, o := range objs {
			if o.Kind != "ExternalSecret" {
				continue
			}
			cluster, ds, err := secretOfExternal(o.YAML)
			if err != nil {
				return &values.Error{Pos: posOf(at), Msg: fmt.Sprintf("the Application %s: chart %s: ExternalSecret %s: %v", name, p, o.Name, err)}
			}
			if ds == nil {
				continue
			}
			ds.by, ds.at = name, at
			out[cluster] = ds
		}
	}
	return nil
}

// fromTree returns src with its value files of a $ref source rewritten to
// paths of the imported tree, relative to the chart at chartPath (from the
// repository's root): the import reads the repository it imports, not the
// ref's repoURL at its revision.
func fromTree(src map[string]any, chartPath string, refs map[string]bool) map[string]any {
	h := asMap(src["helm"])
	list := asList(h["valueFiles"])
	if len(list) == 0 {
		return src
	}
	up := strings.Repeat("../", strings.Count(path.Clean(chartPath), "/")+1)
	files := make([]any, len(list))
	for i, f := range list {
		s, _ := f.(string)
		if ref, rest, ok := strings.Cut(s, "/"); ok && strings.HasPrefix(ref, "$") && refs[ref[1:]] {
			s = up + rest
		}
		files[i] = s
	}
	h2 := make(map[string]any, len(h))
	for k, v := range h {
		h2[k] = v
	}
	h2["valueFiles"] = files
	out := make(map[string]any, len(src))
	for k, v := range src {
		out[k] = v
	}
	out["helm"] = h2
	return out
}

// secretOfExternal reads the cluster Secret an ExternalSecret writes: its
// data.name and the Labels and Annotations of its template, or nil when it
// writes no cluster Secret (no label argocd.argoproj.io/secret-type:
// cluster). A literal holding {{ is the external store's, at run time.
func secretOfExternal(doc []byte) (string, *derivedSecret, error) {
	var es struct {
		Spec struct {
			Target struct {
				Template struct {
					Metadata struct {
						Labels, Annotations map[string]string
					}
					TemplateFrom []struct {
						Target, Literal string
					} `yaml:"templateFrom"`
					Data map[string]string
				}
			}
		}
	}
	if err := yaml.Unmarshal(doc, &es); err != nil {
		return "", nil, err
	}
	t := es.Spec.Target.Template
	ds := &derivedSecret{labels: map[string]string{}, annotations: map[string]string{}}
	for k, v := range t.Metadata.Labels {
		ds.labels[k] = v
	}
	for k, v := range t.Metadata.Annotations {
		ds.annotations[k] = v
	}
	for _, tf := range t.TemplateFrom {
		into := map[string]map[string]string{"Labels": ds.labels, "Annotations": ds.annotations}[tf.Target]
		if into == nil {
			continue
		}
		if strings.Contains(tf.Literal, "{{") {
			ds.runtime = append(ds.runtime, strings.ToLower(tf.Target)+" "+strings.TrimSpace(tf.Literal))
			continue
		}
		var m map[string]any
		if err := yaml.Unmarshal([]byte(tf.Literal), &m); err != nil {
			return "", nil, fmt.Errorf("templateFrom %s literal: %w", tf.Target, err)
		}
		for k, v := range m {
			s, ok := v.(string)
			if !ok {
				return "", nil, fmt.Errorf("templateFrom %s literal: %s is %v, not a string", tf.Target, k, v)
			}
			into[k] = s
		}
	}
	if ds.labels[secretTypeLabel] != "cluster" {
		return "", nil, nil
	}
	name := t.Data["name"]
	if name == "" || strings.Contains(name, "{{") {
		return "", nil, fmt.Errorf("the cluster Secret's name is %q, known at run time only", name)
	}
	if server := t.Data["server"]; !strings.Contains(server, "{{") {
		ds.server = server
	}
	sort.Strings(ds.runtime)
	return name, ds, nil
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// secret is the member's cluster Secret as the ApplicationSets read it.
func (m *eksMember) secret() clusterSecret {
	lb := map[string]string{secretTypeLabel: "cluster", "tenant": m.tenant, "environment": m.env}
	for k, v := range m.labels {
		lb[k] = v
	}
	return clusterSecret{Name: m.name, Server: m.server, Labels: lb, Annotations: m.annotations}
}

// clusterSecrets completes the members' Secrets: a hub's from the Secrets
// given (a member of its own), each spoke's as the repository's chart
// writes it (deriveSecrets), then the Secrets given laid over them.
func (b *eksBuild) clusterSecrets(fsys fs.FS, dir string, opts Options, members []*eksMember) ([]*eksMember, error) {
	given, err := readGivenSecrets(opts.ClusterSecrets)
	if err != nil {
		return nil, err
	}
	byName := map[string]*eksMember{}
	hubs := map[string]bool{}
	for _, m := range members {
		byName[m.name] = m
		hubs[m.hub] = true
	}
	givenFor := map[string]givenSecret{}
	for _, g := range given {
		if byName[g.Name] != nil {
			givenFor[g.Name] = g // laid over below
			continue
		}
		if !hubs[g.Name] && !hydrate.IsDir(fsys, path.Join(dir, eksMembersDir, g.Name)) {
			return nil, &values.Error{Pos: posOf(g.at), Msg: fmt.Sprintf("the Secret of cluster %s, which is neither a member (%s/<hub>/<cluster>.yaml) nor a hub (a directory of it)",
				g.Name, opts.show(path.Join(dir, eksMembersDir)))}
		}
		hub, err := hubMember(g)
		if err != nil {
			return nil, err
		}
		members = insertHub(members, hub)
		byName[hub.name] = hub
	}
	var hubSecrets []clusterSecret
	for _, m := range members {
		if m.name == m.hub {
			hubSecrets = append(hubSecrets, m.secret())
		}
	}
	derived, err := deriveSecrets(fsys, dir, opts, hubSecrets)
	if err != nil {
		return nil, err
	}
	for _, m := range members {
		target := strings.Join([]string{m.tenant, m.env, m.name}, "/")
		if ds := derived[m.name]; ds != nil && m.name != m.hub {
			m.labels = layered(ds.labels, m.labels)
			m.annotations = layered(ds.annotations, m.annotations)
			m.server = firstOf(m.server, ds.server)
			m.unknown = nil
			b.findings = append(b.findings, Finding{Target: target, At: m.file,
				Reason: fmt.Sprintf("its cluster Secret's labels and annotations are those the Application %s of the ApplicationSet at %s writes: its chart rendered with Helm's engine, value files read from the imported tree",
					ds.by, opts.show(ds.at))})
			if len(ds.runtime) > 0 && givenFor[m.name].Name == "" {
				b.findings = append(b.findings, Finding{Target: target, At: opts.show(ds.at),
					Reason: fmt.Sprintf("its cluster Secret also takes %s from the external store at run time, which no file of the repository says: the import leaves them out; give them in a Secret manifest with --cluster-secret",
						strings.Join(ds.runtime, " and "))})
			}
		}
		if g, ok := givenFor[m.name]; ok {
			m.labels = layered(m.labels, withoutPathLabels(g.Labels))
			m.annotations = layered(m.annotations, g.Annotations)
			m.server = firstOf(g.Server, m.server)
		}
		delete(m.labels, "tenant")
		delete(m.labels, "environment")
		delete(m.labels, secretTypeLabel)
	}
	return members, nil
}

// hubMember makes the member of a hub from its Secret: the labels tenant
// and environment place its target.
func hubMember(g givenSecret) (*eksMember, error) {
	pos := posOf(g.at)
	for _, k := range []string{"tenant", "environment"} {
		if g.Labels[k] == "" {
			return nil, &values.Error{Pos: pos, Path: []string{"metadata", "labels", k},
				Msg: fmt.Sprintf("the hub %s's Secret has no label %s: its target is tenants/environments/clusters", g.Name, k)}
		}
	}
	return &eksMember{file: pos.File, hub: g.Name, tenant: g.Labels["tenant"], env: g.Labels["environment"], name: g.Name, server: g.Server,
		labels: withoutPathLabels(g.Labels), annotations: g.Annotations, line: map[string]int{"labels": pos.Line}}, nil
}

// insertHub puts hub before the first member of its hub's directory.
func insertHub(members []*eksMember, hub *eksMember) []*eksMember {
	for i, m := range members {
		if m.hub == hub.name {
			return append(members[:i], append([]*eksMember{hub}, members[i:]...)...)
		}
	}
	return append(members, hub)
}

// layered returns over laid over under, as a new map.
func layered(under, over map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range under {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

// withoutPathLabels is a Secret's labels but those the target's path and
// the Secret's type say.
func withoutPathLabels(lb map[string]string) map[string]string {
	out := layered(lb, nil)
	delete(out, "tenant")
	delete(out, "environment")
	delete(out, secretTypeLabel)
	return out
}
