package importer

import (
	"encoding/base64"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/strata-fleet/strata/internal/hydrate"
	"github.com/strata-fleet/strata/internal/values"
)

// The eks-fleet format's cluster Secrets: those given with the import
// (--cluster-secret: the hub's, which Terraform writes, and what a spoke's
// takes at run time), laid with those the repository's chart writes
// (ekssecret.go) into each member's.

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
	dv, err := deriveSecrets(fsys, dir, opts, hubSecrets)
	if err != nil {
		return nil, err
	}
	b.findings = append(b.findings, dv.findings...)
	for _, m := range members {
		target := strings.Join([]string{m.tenant, m.env, m.name}, "/")
		if ds := dv.secrets[m.name]; ds != nil && m.name != m.hub {
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
