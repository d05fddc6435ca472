package importer

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
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
	var secrets []clusterSecret
	for _, m := range members {
		lb := map[string]string{"argocd.argoproj.io/secret-type": "cluster", "tenant": m.tenant, "environment": m.env}
		for k, v := range m.labels {
			lb[k] = v
		}
		secrets = append(secrets, clusterSecret{Name: m.name, Server: m.server, Labels: lb, Annotations: m.annotations})
	}
	byName := map[string]*Target{}
	for _, m := range members {
		t := &Target{Path: []string{m.tenant, m.env, m.name}, Dir: opts.show(m.file)}
		byName[m.name] = t
		src.Targets = append(src.Targets, t)
	}
	eks := &eksBuild{groups: groups, members: map[string]*eksMember{}, appGroup: map[string]string{}, dims: src.Dimensions,
		releasesFile: opts.show(path.Join(dir, eksReleasesFile)), show: opts.show}
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

// eksBuild turns what the format read into strata's terms: the inventory,
// the named revisions and templates over both in the items.
type eksBuild struct {
	groups   map[string][]eksRelease
	members  map[string]*eksMember
	appGroup map[string]string // target ID + "\x00" + Application name -> its releases group
	dims     []string
	// releasesFile is the releases file as the report names it.
	releasesFile string
	show         func(string) string
	findings     []Finding
}

// releaseLabel is the label of a cluster Secret that chooses the release of
// group g (the repository's convention), revisionLabel the one the import
// adds for strata's named revision.
func releaseLabel(g string) string  { return g + "Release" }
func revisionLabel(g string) string { return g + "Revision" }

// release returns the release of group g that m's label chooses: the one
// of that type, else the first (the ApplicationSets' rule).
func (b *eksBuild) release(m *eksMember, g string) (eksRelease, bool) {
	rs := b.groups[g]
	if v, ok := m.labels[releaseLabel(g)]; ok {
		for _, r := range rs {
			if r.typ == v {
				return r, true
			}
		}
	}
	return rs[0], false
}

// revisionGroups lists the groups whose releases all name a revision, in
// the releases file's order.
func (b *eksBuild) revisionGroups(order []string) []string {
	var out []string
	for _, g := range order {
		if !slices.ContainsFunc(b.groups[g], func(r eksRelease) bool { return r.revision == "" }) {
			out = append(out, g)
		}
	}
	return out
}

// config is what config.yaml gets beyond the fleet's shape: cluster facts
// and a named revision per group of releases.
func (b *eksBuild) config(order []string) []*yaml.Node {
	facts := mapping("clusters", mapping("facts", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"}))
	facts.Content[0].HeadComment = "The member files' labels and annotations (their cluster Secrets') are values\nof every component: .Values.cluster.labels, .Values.cluster.annotations."
	out := facts.Content
	groups := b.revisionGroups(order)
	if len(groups) == 0 {
		return out
	}
	revs := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for _, g := range groups {
		revs.Content = append(revs.Content, scalar(g), mapping("label", revisionLabel(g), "default", b.groups[g][0].revision))
	}
	r := mapping("revisions", revs)
	r.Content[0].HeadComment = "A revision per group of the releases file (fleet/bootstrap/versions/applicationSets.yaml):\nthe first release's where a cluster's label <group>Release names none, else the\none it names, which the import wrote as the cluster's label <group>Revision."
	return append(out, r.Content...)
}

// inventory writes config/clusters/<name>.yaml per member.
func (b *eksBuild) inventory(src *Source, members []*eksMember, order []string) map[string][]byte {
	files := map[string][]byte{}
	groups := b.revisionGroups(order)
	for _, m := range members {
		doc := mapping("type", src.ClusterType, "target", strings.Join([]string{m.tenant, m.env, m.name}, "/"))
		if m.name != m.hub {
			if _, ok := b.members[m.hub]; ok {
				doc.Content = append(doc.Content, mapping("hub", m.hub).Content...)
			} else {
				b.findings = append(b.findings, Finding{Target: strings.Join([]string{m.tenant, m.env, m.name}, "/"), At: m.file,
					Reason: "no hub: " + m.hub + " has no member file of its own, so the inventory cannot name it as the hub whose Argo CD holds this cluster's Applications; add it"})
			}
		}
		if m.server != "" {
			doc.Content = append(doc.Content, mapping("server", m.server).Content...)
		}
		lb := map[string]string{}
		for k, v := range m.labels {
			lb[k] = v
		}
		for _, g := range groups {
			r, named := b.release(m, g)
			if !named {
				continue
			}
			lb[revisionLabel(g)] = r.revision
			b.findings = append(b.findings, Finding{Target: strings.Join([]string{m.tenant, m.env, m.name}, "/"), Field: "labels." + revisionLabel(g),
				At: fmt.Sprintf("%s:%d", m.file, m.line["labels"]),
				Reason: fmt.Sprintf("added: %s, the revision of release %s (%s:%d) that label %s names; strata's revision %s follows it (its cluster Secret gets the label too)",
					r.revision, r.typ, b.releasesFile, r.line, releaseLabel(g), g)})
		}
		if len(lb) > 0 {
			doc.Content = append(doc.Content, mapping("labels", stringMapNode(lb)).Content...)
		}
		if len(m.annotations) > 0 {
			doc.Content = append(doc.Content, mapping("annotations", stringMapNode(m.annotations)).Content...)
		}
		for _, k := range m.unknown {
			b.findings = append(b.findings, Finding{Target: strings.Join([]string{m.tenant, m.env, m.name}, "/"), Field: k, At: fmt.Sprintf("%s:%d", m.file, m.line[k]),
				Reason: "not carried over: the import reads a member's tenant, environment, clusterName, server, labels and annotations; put what its Secret carries under labels or annotations"})
		}
		files[path.Join("config/clusters", m.name+".yaml")] = encode("# From "+b.show(m.file)+" (strata import eks-fleet).\n", doc)
	}
	return files
}

func stringMapNode(m map[string]string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for _, k := range sortedKeys(m) {
		n.Content = append(n.Content, scalar(k), &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: m[k], Style: quoteIfNeeded(m[k])})
	}
	return n
}

// quoteIfNeeded quotes a string YAML would read as another type.
func quoteIfNeeded(s string) yaml.Style {
	var v any
	if err := yaml.Unmarshal([]byte(s), &v); err != nil {
		return yaml.DoubleQuotedStyle
	}
	if _, ok := v.(string); !ok {
		return yaml.DoubleQuotedStyle
	}
	return 0
}

// generalize writes the facts and revisions of target t's cluster into
// item it of o as the templates that give them: a chart source's
// targetRevision as its group's named revision; a string that is one of
// the cluster's annotations as that annotation; in the text of every other
// string (outside templates), the tenant and the environment as theirs,
// then annotations. Only annotations every member has are written so: an
// override at a node holds for every target under it, even one whose item
// is disabled, and a missing key is an error there. Each template gives t back its own value
// (Verify checks it); what the targets then share goes into values.yaml.
func (b *eksBuild) generalize(t *Target, o *Object, it *yaml.Node) *yaml.Node {
	m := b.members[t.Path[2]]
	if m == nil {
		return it
	}
	it = deepCopy(it)
	g := b.appGroup[t.ID()+"\x00"+o.Name]
	var words []wordTemplate
	if g != "" {
		r, _ := b.release(m, g)
		sources := lookupSeqNodes(get(it, "sources"))
		if s := get(it, "source"); s != nil {
			sources = append(sources, s)
		}
		for _, s := range sources {
			if tr := get(s, "targetRevision"); r.revision != "" && get(s, "ref") == nil && tr != nil && tr.Value == r.revision {
				setScalar(s, "targetRevision", "{{ .Values.cluster.revisions."+g+" }}")
			}
		}
	}
	var anns []wordTemplate
	for _, k := range sortedKeys(m.annotations) {
		if v := m.annotations[k]; len(v) >= 4 && b.everyMember(k) {
			anns = append(anns, wordTemplate{v, factRef("annotations", k)})
		}
	}
	sort.SliceStable(anns, func(i, j int) bool { return len(anns[i].word) > len(anns[j].word) })
	words = append(words, wordTemplate{m.tenant, "{{ .Values.cluster." + singular(b.dims[0]) + " }}"},
		wordTemplate{m.env, "{{ .Values.cluster." + singular(b.dims[1]) + " }}"})
	words = append(words, anns...)
	rewriteStrings(it, func(s string) string {
		for _, a := range anns {
			if s == a.word {
				return a.tpl // the whole string is the annotation, not a word of a path
			}
		}
		return outsideTemplates(s, func(text string) string {
			for _, w := range words {
				text = replaceWord(text, w.word, w.tpl)
			}
			return text
		})
	})
	return it
}

// identifier is a key a template can name with a dot.
var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// factRef is the template that gives the cluster's label or annotation
// key: .Values.cluster.labels.key, or with index where the key is no
// identifier (the chart writes some strings in double quotes, so the key
// is quoted only where it must be).
func factRef(kind, key string) string {
	if identifier.MatchString(key) {
		return "{{ .Values.cluster." + kind + "." + key + " }}"
	}
	return fmt.Sprintf("{{ index .Values.cluster.%s %q }}", kind, key)
}

// everyMember reports whether every member's Secret has annotation k.
func (b *eksBuild) everyMember(k string) bool {
	for _, m := range b.members {
		if _, ok := m.annotations[k]; !ok {
			return false
		}
	}
	return true
}

// A wordTemplate is a word and the template that gives it.
type wordTemplate struct{ word, tpl string }

// rewriteStrings replaces each string value of n (not the keys) by f's.
func rewriteStrings(n *yaml.Node, f func(string) string) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			rewriteStrings(n.Content[i], f)
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			rewriteStrings(c, f)
		}
	case yaml.ScalarNode:
		if n.ShortTag() == "!!str" {
			if v := f(n.Value); v != n.Value {
				n.Value, n.Style = v, 0
			}
		}
	}
}

// outsideTemplates applies f to the text of s outside its template actions
// ({{ ... }}), which it leaves as they are.
func outsideTemplates(s string, f func(string) string) string {
	var b strings.Builder
	for s != "" {
		i := strings.Index(s, "{{")
		if i < 0 {
			b.WriteString(f(s))
			break
		}
		j := strings.Index(s[i:], "}}")
		if j < 0 {
			b.WriteString(f(s))
			break
		}
		b.WriteString(f(s[:i]))
		b.WriteString(s[i : i+j+2])
		s = s[i+j+2:]
	}
	return b.String()
}
