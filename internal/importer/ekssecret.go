package importer

import (
	"errors"
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
func deriveSecrets(fsys fs.FS, dir string, opts Options, hubs []clusterSecret) (*derivation, error) {
	dv := &derivation{fsys: fsys, dir: dir, secrets: map[string]*derivedSecret{}, read: map[string]bool{}, families: map[string]family{}}
	if len(hubs) == 0 {
		return dv, nil
	}
	root := path.Join(dir, eksFleetBootstrapDir)
	entries, err := fs.ReadDir(fsys, root)
	if err != nil {
		return dv, nil //nolint:nilerr // no fleet-bootstrap directory: no Secret is derived
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
				if err := dv.application(a.App, d.at()); err != nil {
					return nil, err
				}
			}
		}
	}
	return dv, dv.unread(opts)
}

// derivation is what deriveSecrets found.
type derivation struct {
	fsys fs.FS
	dir  string
	// secrets are the Secrets per cluster name.
	secrets map[string]*derivedSecret
	// read holds the value files of the tree the charts were given;
	// families, per trailing path the value files of one Application
	// share (fleet/fleet-secret/values.yaml), where they were named.
	read     map[string]bool
	families map[string]family
	findings []Finding
}

// family is where a family of value files was named: the chart given
// them and its ApplicationSet's file:line.
type family struct{ chart, at string }

// unread reports each file of a family of value files that no
// Application read: the repository means it for the chart, which never
// gets it.
func (dv *derivation) unread(opts Options) error {
	if len(dv.families) == 0 {
		return nil
	}
	return fs.WalkDir(dv.fsys, dv.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || dv.read[p] {
			return err
		}
		for _, suffix := range sortedKeys(dv.families) {
			if strings.HasSuffix(p, "/"+suffix) {
				f := dv.families[suffix]
				dv.findings = append(dv.findings, Finding{At: opts.show(p), Fault: true,
					Reason: fmt.Sprintf("never read: a value file of chart %s (.../%s) at a path that no Application of the ApplicationSet at %s names for any member",
						f.chart, suffix, opts.show(f.at))})
				return nil
			}
		}
		return nil
	})
}

// application renders app's chart sources and records the cluster Secrets
// their ExternalSecrets write.
func (dv *derivation) application(app map[string]any, at string) error {
	fsys, dir := dv.fsys, dv.dir
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
		treeSrc := fromTree(src, p, refs)
		dv.valueFiles(treeSrc, chartDir, family{p, at})
		rel := hydrate.ReleaseOf(treeSrc, name, ns)
		objs, skip, err := hydrate.HelmChart(fsys, chartDir, rel)
		if err == nil && skip != "" {
			err = errors.New(skip)
		}
		if err != nil {
			return &values.Error{Pos: posOf(at), Msg: fmt.Sprintf("the Application %s renders chart %s, which could write a cluster Secret: %v", name, p, err)}
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
			dv.secrets[cluster] = ds
		}
	}
	return nil
}

// valueFiles records the value files of the tree that src (as fromTree
// returns it) names for the chart in chartDir: those that exist as read,
// and the trailing path they share (two or more files, two or more
// elements) as a family, which what names them (its chart and
// ApplicationSet) means for the chart.
func (dv *derivation) valueFiles(src map[string]any, chartDir string, what family) {
	var files [][]string
	for _, f := range asList(asMap(src["helm"])["valueFiles"]) {
		s, _ := f.(string)
		if !strings.HasPrefix(s, "../") {
			continue // not of a $ref source
		}
		p := path.Join(chartDir, s)
		if hydrate.IsFile(dv.fsys, p) {
			dv.read[p] = true
		}
		files = append(files, strings.Split(p, "/"))
	}
	if len(files) < 2 {
		return
	}
	n := 0
	for ; ; n++ {
		first := files[0]
		if n >= len(first) {
			break
		}
		same := true
		for _, f := range files[1:] {
			if n >= len(f) || f[len(f)-1-n] != first[len(first)-1-n] {
				same = false
				break
			}
		}
		if !same {
			break
		}
	}
	if n >= 2 {
		first := files[0]
		suffix := strings.Join(first[len(first)-n:], "/")
		if _, ok := dv.families[suffix]; !ok {
			dv.families[suffix] = what
		}
	}
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
