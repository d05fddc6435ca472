package importer

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/strata-fleet/strata/internal/values"
)

// The eks-fleet format: markoskandylis/eks-fleet-management's layout.
// SOURCE is the repository's root; under it
//
//	fleet/bootstrap/versions/applicationSets.yaml        the releases file
//	fleet/fleet-bootstrap/fleet-members/<hub>/<c>.yaml    a member file per cluster
//	fleet/bootstrap/<hub>/*.yaml                          the hub's ApplicationSets
//
// and the value-file tree the ApplicationSets' Applications read. A member
// file holds tenant, environment and clusterName, optionally server,
// labels and annotations: the cluster Secret's (tenant and environment are
// labels of it too, as the fleet-secret chart writes them); the member file
// of <hub> named <hub> is the hub's own. Each cluster is a target
// (tenants/environments/clusters), its objects the Applications the hub's
// ApplicationSets give for its Secret (evaluated as the ApplicationSet
// controller does: appset.go). The releases file lists, per group of
// addons, releases (type, chartRepoRevision or version); a cluster's label
// <group>Release chooses one (the first when unset or unknown, the
// repository's rule); each group becomes a named revision (config.yaml
// revisions:) chosen by a label the import adds beside it.

const (
	eksReleasesFile = "fleet/bootstrap/versions/applicationSets.yaml"
	eksMembersDir   = "fleet/fleet-bootstrap/fleet-members"
	eksBootstrapDir = "fleet/bootstrap"
	// eksFleetBootstrapDir holds the ApplicationSets that write the
	// spokes' Secrets (ekssecret.go).
	eksFleetBootstrapDir = "fleet/fleet-bootstrap"
)

// eksMember is one member file.
type eksMember struct {
	file, hub, tenant, env, name, server string
	labels, annotations                  map[string]string
	line                                 map[string]int // key -> line, for errors
	// unknown lists the keys the import does not read.
	unknown []string
}

// eksRelease is one release of a group.
type eksRelease struct {
	typ, revision string
	line          int
}

func readEKSFleet(fsys fs.FS, opts Options) (*Source, error) {
	dir := path.Clean(opts.Dir)
	src := &Source{ClusterType: opts.ClusterType, Dimensions: opts.Dimensions}
	if src.ClusterType == "" {
		src.ClusterType = "eks"
	}
	if src.Dimensions == nil {
		src.Dimensions = []string{"tenants", "environments", "clusters"}
	}
	if len(src.Dimensions) != 3 {
		return nil, fmt.Errorf("the eks-fleet format makes three dimensions (tenant, environment, cluster), not %d", len(src.Dimensions))
	}
	groups, order, err := eksReleases(fsys, dir, opts)
	if err != nil {
		return nil, err
	}
	members, err := eksMembers(fsys, dir, opts)
	if err != nil {
		return nil, err
	}
	eks := &eksBuild{groups: groups, members: map[string]*eksMember{}, appGroup: map[string]string{}, dims: src.Dimensions,
		releasesFile: opts.show(path.Join(dir, eksReleasesFile)), show: opts.show}
	if members, err = eks.clusterSecrets(fsys, dir, opts, members); err != nil {
		return nil, err
	}
	var secrets []clusterSecret
	for _, m := range members {
		secrets = append(secrets, m.secret())
	}
	byName := map[string]*Target{}
	for _, m := range members {
		t := &Target{Path: []string{m.tenant, m.env, m.name}, Dir: opts.show(m.file)}
		byName[m.name] = t
		src.Targets = append(src.Targets, t)
	}
	for _, m := range members {
		eks.members[m.name] = m
	}
	if err := eksApplications(fsys, dir, opts, src, secrets, byName, eks); err != nil {
		return nil, err
	}
	src.Generalize = eks.generalize
	src.Files = eks.inventory(src, members, order)
	src.Config = eks.config(order)
	src.Findings = append(src.Findings, eks.findings...)
	return src, nil
}

// eksReleases reads the releases file: per group, its releases in order.
func eksReleases(fsys fs.FS, dir string, opts Options) (map[string][]eksRelease, []string, error) {
	file := path.Join(dir, eksReleasesFile)
	data, err := fs.ReadFile(fsys, file)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: no releases file: %w", opts.show(file), err)
	}
	docs, _, err := readDocuments(file, data)
	if err != nil {
		return nil, nil, err
	}
	var rel *yaml.Node
	if len(docs) > 0 {
		rel = get(docs[0].node, "releases")
	}
	if rel == nil || rel.Kind != yaml.MappingNode {
		return nil, nil, &values.Error{Pos: values.Pos{File: file, Line: 1, Col: 1}, Path: []string{"releases"}, Msg: "no releases (a mapping of groups of addons to their releases)"}
	}
	globals := get(rel, "globals")
	groups := map[string][]eksRelease{}
	var order []string
	for i := 0; i+1 < len(rel.Content); i += 2 {
		g, list := rel.Content[i].Value, rel.Content[i+1]
		if g == "globals" {
			continue
		}
		if list.Kind != yaml.SequenceNode || len(list.Content) == 0 {
			return nil, nil, &values.Error{Pos: values.Pos{File: file, Line: list.Line, Col: list.Column}, Path: []string{"releases", g},
				Msg: "a group's releases are a list of at least one release (type, chartRepoRevision or version)"}
		}
		seen := map[string]int{}
		for j, r := range list.Content {
			typ := str(r, "type")
			pos := values.Pos{File: file, Line: r.Line, Col: r.Column}
			if r.Kind != yaml.MappingNode || typ == "" {
				return nil, nil, &values.Error{Pos: pos, Path: []string{"releases", g, fmt.Sprint(j)}, Msg: "a release needs a type"}
			}
			if prev, ok := seen[typ]; ok {
				return nil, nil, &values.Error{Pos: pos, Also: []values.Pos{{File: file, Line: prev}}, Path: []string{"releases", g, fmt.Sprint(j)},
					Msg: fmt.Sprintf("a second release of type %q (the ApplicationSets would make two Applications of one name)", typ)}
			}
			seen[typ] = r.Line
			rev := firstOf(str(r, "chartRepoRevision"), str(globals, "chartRepoRevision"))
			if str(r, "use_helm_repo_path") == "false" {
				rev = firstOf(str(r, "version"), str(globals, "version"))
			}
			groups[g] = append(groups[g], eksRelease{typ: typ, revision: rev, line: r.Line})
		}
		order = append(order, g)
	}
	return groups, order, nil
}

func firstOf(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// eksMembers reads the member files, hub by hub, each hub's own first.
func eksMembers(fsys fs.FS, dir string, opts Options) ([]*eksMember, error) {
	root := path.Join(dir, eksMembersDir)
	hubs, err := fs.ReadDir(fsys, root)
	if err != nil {
		return nil, fmt.Errorf("%s: no fleet members: %w", opts.show(root), err)
	}
	var out []*eksMember
	seen := map[string]*eksMember{}
	for _, h := range hubs {
		if !h.IsDir() {
			continue
		}
		files, err := fs.ReadDir(fsys, path.Join(root, h.Name()))
		if err != nil {
			return nil, err
		}
		var ms []*eksMember
		for _, f := range files {
			if f.IsDir() || !strings.HasSuffix(f.Name(), ".yaml") {
				continue
			}
			m, err := eksMemberFile(fsys, path.Join(root, h.Name(), f.Name()), h.Name(), opts)
			if err != nil {
				return nil, err
			}
			if prev := seen[m.name]; prev != nil {
				return nil, &values.Error{Pos: values.Pos{File: m.file, Line: m.line["clusterName"]}, Also: []values.Pos{{File: prev.file, Line: prev.line["clusterName"]}},
					Path: []string{"clusterName"}, Msg: fmt.Sprintf("cluster %s is a member twice", m.name)}
			}
			seen[m.name] = m
			ms = append(ms, m)
		}
		sort.SliceStable(ms, func(i, j int) bool { return ms[i].name == h.Name() && ms[j].name != h.Name() })
		out = append(out, ms...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no member files (<hub>/<cluster>.yaml)", opts.show(root))
	}
	return out, nil
}

// eksMemberFile reads one member file.
func eksMemberFile(fsys fs.FS, file, hub string, opts Options) (*eksMember, error) {
	data, err := fs.ReadFile(fsys, file)
	if err != nil {
		return nil, err
	}
	docs, _, err := readDocuments(file, data)
	if err != nil {
		return nil, err
	}
	if len(docs) != 1 || docs[0].node.Kind != yaml.MappingNode {
		return nil, &values.Error{Pos: values.Pos{File: file, Line: 1, Col: 1}, Msg: "a member file is one mapping (tenant, environment, clusterName, labels, annotations)"}
	}
	n := docs[0].node
	m := &eksMember{file: file, hub: hub, line: map[string]int{}}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		m.line[k.Value] = k.Line
		switch k.Value {
		case "tenant", "environment", "clusterName", "server":
			if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!str" || v.Value == "" {
				return nil, &values.Error{Pos: values.Pos{File: file, Line: v.Line, Col: v.Column}, Path: []string{k.Value}, Msg: "not a string"}
			}
		case "labels", "annotations":
			sm, err := stringMapOf(file, k.Value, v)
			if err != nil {
				return nil, err
			}
			if k.Value == "labels" {
				m.labels = sm
			} else {
				m.annotations = sm
			}
		default:
			m.unknown = append(m.unknown, k.Value)
		}
	}
	m.tenant, m.env, m.name, m.server = str(n, "tenant"), str(n, "environment"), str(n, "clusterName"), str(n, "server")
	for _, k := range []string{"tenant", "environment", "clusterName"} {
		if str(n, k) == "" {
			return nil, &values.Error{Pos: values.Pos{File: file, Line: 1, Col: 1}, Msg: "missing key " + k,
				Hint: "a member file names its cluster's tenant, environment and clusterName"}
		}
	}
	for _, k := range []string{"tenant", "environment"} {
		if v, ok := m.labels[k]; ok && v != str(n, k) {
			return nil, &values.Error{Pos: values.Pos{File: file, Line: m.line["labels"]}, Path: []string{"labels", k},
				Msg: fmt.Sprintf("label %s is %q, the member's %s %q: its Secret has one", k, v, k, str(n, k))}
		}
		delete(m.labels, k)
	}
	return m, nil
}

// stringMapOf reads a mapping of strings (labels, annotations).
func stringMapOf(file, key string, v *yaml.Node) (map[string]string, error) {
	if v.Kind != yaml.MappingNode {
		return nil, &values.Error{Pos: values.Pos{File: file, Line: v.Line, Col: v.Column}, Path: []string{key}, Msg: "not a mapping of strings"}
	}
	out := map[string]string{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		x := v.Content[i+1]
		if x.Kind != yaml.ScalarNode || x.ShortTag() != "!!str" {
			return nil, &values.Error{Pos: values.Pos{File: file, Line: x.Line, Col: x.Column}, Path: []string{key, v.Content[i].Value},
				Msg: "not a string (a Secret's " + key + " are strings: quote it)"}
		}
		out[v.Content[i].Value] = x.Value
	}
	return out, nil
}

// eksApplications evaluates the ApplicationSets of each hub's bootstrap
// directory and gives each target the Applications its cluster's Secret
// makes.
func eksApplications(fsys fs.FS, dir string, opts Options, src *Source, secrets []clusterSecret, byName map[string]*Target, eks *eksBuild) error {
	root := path.Join(dir, eksBootstrapDir)
	hubs, err := fs.ReadDir(fsys, root)
	if err != nil {
		return fmt.Errorf("%s: no bootstrap directory: %w", opts.show(root), err)
	}
	for _, h := range hubs {
		if !h.IsDir() || h.Name() == "versions" {
			continue
		}
		var hubSecrets []clusterSecret
		for _, s := range secrets {
			if m := eks.members[s.Name]; m != nil && m.hub == h.Name() {
				hubSecrets = append(hubSecrets, s)
			}
		}
		files, err := fs.ReadDir(fsys, path.Join(root, h.Name()))
		if err != nil {
			return err
		}
		for _, f := range files {
			if f.IsDir() || !strings.HasSuffix(f.Name(), ".yaml") && !strings.HasSuffix(f.Name(), ".yml") {
				continue
			}
			file := path.Join(root, h.Name(), f.Name())
			if err := eksAppSetFile(fsys, file, dir, opts, src, hubSecrets, byName, eks); err != nil {
				return err
			}
		}
	}
	return nil
}

func eksAppSetFile(fsys fs.FS, file, dir string, opts Options, src *Source, secrets []clusterSecret, byName map[string]*Target, eks *eksBuild) error {
	data, err := fs.ReadFile(fsys, file)
	if err != nil {
		return err
	}
	docs, dups, err := readDocuments(file, data)
	if err != nil {
		return err
	}
	src.Findings = append(src.Findings, dups...)
	for _, d := range docs {
		o, err := objectOf(d)
		if err != nil {
			var ve *values.Error
			if errors.As(err, &ve) {
				src.Findings = append(src.Findings, Finding{At: d.at(), Reason: "skipped: not an Argo CD object (" + ve.Msg + ")"})
				continue
			}
			return err
		}
		if o.Kind != "ApplicationSet" {
			src.Findings = append(src.Findings, Finding{Object: o.Key(), At: o.At, Reason: "not carried over: strata import evaluates the hub's ApplicationSets; keep it where the hub's bootstrap applies it"})
			continue
		}
		apps, reads, err := evalAppSet(d.node, d.at(), fsys, dir, opts.show, secrets)
		if err != nil {
			return err
		}
		group := appSetGroup(d.node)
		if _, ok := eks.groups[group]; !ok {
			group = ""
		}
		per := map[string]int{}
		for _, a := range apps {
			per[a.Cluster]++
		}
		for _, a := range apps {
			t := byName[a.Cluster]
			if t == nil {
				return &values.Error{Pos: posOf(o.At), Msg: fmt.Sprintf("an Application for %q, which is no member's cluster", a.Cluster)}
			}
			var doc yaml.Node
			if err := doc.Encode(a.App); err != nil {
				return err
			}
			ao, err := objectOf(document{file: file, node: &doc})
			if err != nil {
				return fmt.Errorf("%s: an Application of %s: %w", opts.show(o.At), o.Name, err)
			}
			ao.At, ao.Written = o.At, nil
			if per[a.Cluster] == 1 {
				ao.Component = o.Name
			}
			if group != "" {
				eks.appGroup[t.ID()+"\x00"+ao.Name] = group
			}
			t.Objects = append(t.Objects, ao)
		}
		var shownReads []string
		for _, r := range reads {
			if !slices.Contains(shownReads, opts.show(r)) {
				shownReads = append(shownReads, opts.show(r))
			}
		}
		reason := fmt.Sprintf("not carried over as an ApplicationSet: its %d Applications are rendered per cluster (its Secret's labels and annotations are the inventory's); remove it from the hub's bootstrap once the roots deploy rendered/", len(apps))
		if len(shownReads) > 0 {
			reason += "; its git files generator was read from the imported tree (" + strings.Join(shownReads, ", ") + "), not at the revision it names"
		}
		src.Findings = append(src.Findings, Finding{Object: o.Key(), At: o.At, Reason: reason})
	}
	return nil
}

// appSetGroup is the releases group an ApplicationSet deploys: its clusters
// generator's values.applicationSetGroup, the repository's convention.
func appSetGroup(set *yaml.Node) string {
	var walk func(n *yaml.Node) string
	walk = func(n *yaml.Node) string {
		if n == nil {
			return ""
		}
		if c := get(n, "clusters"); c != nil {
			if g := str(get(c, "values"), "applicationSetGroup"); g != "" {
				return g
			}
		}
		for _, k := range n.Content {
			if g := walk(k); g != "" {
				return g
			}
		}
		return ""
	}
	return walk(get(get(set, "spec"), "generators"))
}
