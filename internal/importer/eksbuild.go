package importer

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

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
		_, hubKnown := b.members[m.hub]
		switch {
		case m.name == m.hub:
		case !hubKnown:
			b.findings = append(b.findings, Finding{Target: strings.Join([]string{m.tenant, m.env, m.name}, "/"), At: m.file,
				Reason: "no hub: " + m.hub + " has neither a member file nor a Secret given (--cluster-secret), so the inventory cannot name it as the hub whose Argo CD holds this cluster's Applications; give its Secret"})
		case m.server == "":
			b.findings = append(b.findings, Finding{Target: strings.Join([]string{m.tenant, m.env, m.name}, "/"), At: m.file,
				Reason: "no hub: the cluster's server is not in the repository (its Secret takes it at run time), and the inventory names a hub only with the server its Argo CD reaches; give the Secret with stringData.server (--cluster-secret) to name " + m.hub})
		default:
			doc.Content = append(doc.Content, mapping("hub", m.hub).Content...)
		}
		if m.server != "" && (m.name != m.hub || m.server != inCluster) {
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
				At: m.at("labels"),
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

// at is the member file's line of key, or the file where it has none.
func (m *eksMember) at(key string) string {
	if l := m.line[key]; l > 0 {
		return fmt.Sprintf("%s:%d", m.file, l)
	}
	return m.file
}

// inCluster is the server of a cluster Secret for Argo CD's own cluster.
const inCluster = "https://kubernetes.default.svc"

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
	for _, a := range anns {
		if specific(a.word) {
			words = append(words, a)
		}
	}
	rewriteStrings(it, func(s string) string {
		for _, a := range anns {
			if s == a.word {
				return a.tpl // the whole string is the annotation, not a word of a path
			}
		}
		// A word at a time, outside the templates written so far: an
		// annotation's value can stand as a word in a template another
		// one wrote (addons in .Values.cluster.annotations.addons_repo_path).
		for _, w := range words {
			s = outsideTemplates(s, func(text string) string { return replaceWord(text, w.word, w.tpl) })
		}
		return s
	})
	return it
}

// specific reports whether an annotation's value is unlikely to stand as a
// word in an object for another reason than the annotation: a path, URL,
// domain or ARN (a / . or :), or eight characters or more with a digit
// (an account, a region, an id). A plain word (addons, fleet, bootstrap)
// also stands in names, paths and URLs the ApplicationSet wrote literally
// (resources-finalizer, eks-fleet-management): written as the
// annotation's template there, it would follow a change of the
// annotation, which the repository's ApplicationSet never does. A string
// that is the whole value (targetRevision: main) is the annotation's
// whatever its value.
func specific(v string) bool {
	return strings.ContainsAny(v, "/.:") || len(v) >= 8 && strings.ContainsAny(v, "0123456789")
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
