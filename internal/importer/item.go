package importer

import (
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// sections maps the kinds strata renders to their section of the values.
var sections = map[string]string{
	"Application":    "applications",
	"ApplicationSet": "applicationsets",
	"AppProject":     "appprojects",
}

const argoAPIVersion = "argoproj.io/v1alpha1"

// ownKeys are the keys of an item the built-in chart reads itself (not
// fields of the spec).
var ownKeys = map[string]bool{"name": true, "enabled": true, "syncWave": true, "additionalAnnotations": true,
	"additionalLabels": true, "namespace": true, "finalizers": true}

// metadataKeys maps the metadata fields the chart writes to their item keys.
var metadataKeys = []struct{ field, key string }{
	{"namespace", "namespace"},
	{"labels", "additionalLabels"},
	{"annotations", "additionalAnnotations"},
	{"finalizers", "finalizers"},
}

// omittedWhenEmpty are the fields of each kind's spec that the built-in
// chart writes only when they are set (Go templates' with): false, 0, ""
// and empty mappings and lists are left out.
var omittedWhenEmpty = map[string][]string{
	"Application": {"source", "sources", "syncPolicy", "revisionHistoryLimit", "ignoreDifferences", "info"},
	"ApplicationSet": {"generators", "ignoreApplicationDifferences", "strategy", "syncPolicy", "templatePatch", "template",
		"template.metadata", "template.metadata.annotations", "template.metadata.labels", "template.metadata.namespace",
		"template.spec", "template.spec.source", "template.spec.sources", "template.spec.syncPolicy",
		"template.spec.ignoreDifferences", "template.spec.info"},
}

// converter turns the objects of one target into items, collecting what it
// leaves out.
type converter struct {
	target   string
	findings []Finding
}

func (c *converter) drop(o *Object, path []string, fault bool, reason string) {
	at := o.At
	if n := lookup(o.Written, path); n != nil && n.Line > 0 {
		if i := strings.LastIndexByte(at, ':'); i >= 0 {
			at = at[:i]
		}
		at += ":" + strconv.Itoa(n.Line)
	}
	c.findings = append(c.findings, Finding{Target: c.target, Object: o.Key(), Field: strings.Join(path, "."), At: at, Reason: reason,
		Fault: fault, dropped: path})
}

// item converts o into the section and item of the built-in chart that
// render it back; ok is false when strata cannot render its kind.
func (c *converter) item(o *Object) (section string, it *yaml.Node, ok bool) {
	section, ok = sections[o.Kind]
	if api := str(o.Doc, "apiVersion"); !ok || api != argoAPIVersion {
		c.findings = append(c.findings, Finding{Target: c.target, Object: o.Key(), At: o.At, leftOut: true,
			Reason: "left out: strata renders Argo CD's Application, ApplicationSet and AppProject (" + argoAPIVersion + ") only; keep it where the bootstrap applies it"})
		return "", nil, false
	}
	it = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for i := 0; i+1 < len(o.Doc.Content); i += 2 {
		k := o.Doc.Content[i].Value
		switch k {
		case "apiVersion", "kind", "metadata", "spec":
		case "status":
			c.drop(o, []string{k}, false, "left out: Argo CD writes the status")
		default:
			c.drop(o, []string{k}, false, "left out: the built-in chart writes apiVersion, kind, metadata and spec only")
		}
	}
	c.metadata(o, it)
	spec := get(o.Doc, "spec")
	if spec == nil || isNull(spec) {
		return section, it, true
	}
	if spec.Kind != yaml.MappingNode {
		c.drop(o, []string{"spec"}, true, "left out: not a mapping")
		return section, it, true
	}
	empty := map[string]bool{}
	for _, f := range omittedWhenEmpty[o.Kind] {
		if v := lookup(spec, strings.Split(f, ".")); v != nil && !truthy(v) {
			empty[f] = true
			c.drop(o, append([]string{"spec"}, strings.Split(f, ".")...), false, emptyReason(v))
		}
	}
	for i := 0; i+1 < len(spec.Content); i += 2 {
		k, v := spec.Content[i].Value, spec.Content[i+1]
		switch {
		case empty[k]:
			continue
		case ownKeys[k]:
			c.drop(o, []string{"spec", k}, true, "left out: not a field of "+o.Kind+"'s spec, and the built-in chart reads an item's "+k+" itself")
			continue
		case k == "project" && o.Kind == "Application" && hasAction(v):
			c.drop(o, []string{"spec", "project"}, false, "left out: the built-in chart renders a template in an Application's project (tpl), so Argo CD's own cannot pass")
			continue
		}
		if o.Kind == "ApplicationSet" && k == "template" && v.Kind == yaml.MappingNode {
			v = withoutEmpty(v, "template", empty)
		}
		it.Content = append(it.Content, scalar(k), escapeNode(v))
	}
	return section, it, true
}

// metadata adds o's metadata fields to it as the chart's item keys.
func (c *converter) metadata(o *Object, it *yaml.Node) {
	md := get(o.Doc, "metadata")
	known := map[string]bool{"name": true}
	for _, m := range metadataKeys {
		known[m.field] = true
		v := get(md, m.field)
		if v == nil || isNull(v) {
			continue
		}
		if !truthy(v) {
			c.drop(o, []string{"metadata", m.field}, false, "left out: empty, and the built-in chart writes it only when it is set")
			continue
		}
		if m.field == "annotations" {
			v = c.annotations(o, v)
			if len(v.Content) == 0 {
				continue
			}
		}
		it.Content = append(it.Content, scalar(m.key), escapeNode(v))
	}
	for i := 0; md != nil && i+1 < len(md.Content); i += 2 {
		if k := md.Content[i].Value; !known[k] {
			c.drop(o, []string{"metadata", k}, false, "left out: the built-in chart writes metadata's name, namespace, labels, annotations and finalizers only")
		}
	}
}

// annotations returns the annotations the chart can write: it quotes their
// values in double quotes, where an escaped action cannot stand.
func (c *converter) annotations(o *Object, v *yaml.Node) *yaml.Node {
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		if hasAction(k) || hasAction(val) {
			c.drop(o, []string{"metadata", "annotations", k.Value}, false, "left out: the built-in chart writes annotations in double quotes, where Argo CD's template cannot be escaped")
			continue
		}
		out.Content = append(out.Content, k, val)
	}
	return out
}

// emptyReason says why a field the chart writes only when it is set is left
// out, and what that changes.
func emptyReason(v *yaml.Node) string {
	if v.Kind == yaml.ScalarNode && v.ShortTag() != "!!null" && v.Value != "" {
		return "left out: the built-in chart writes it only when it is set, and " + v.Value + " is not: Argo CD uses its default instead (set it in the item once the chart writes it)"
	}
	return "left out: empty, and the built-in chart writes it only when it is set (Argo CD reads it as unset)"
}

// withoutEmpty returns mapping n (at path p of the spec) without the
// fields that empty names.
func withoutEmpty(n *yaml.Node, p string, empty map[string]bool) *yaml.Node {
	out := *n
	out.Content = nil
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		q := p + "." + k.Value
		if empty[q] {
			continue
		}
		if v.Kind == yaml.MappingNode {
			v = withoutEmpty(v, q, empty)
		}
		out.Content = append(out.Content, k, v)
	}
	return &out
}

// lookup returns the node at path in mapping n, or nil.
func lookup(n *yaml.Node, path []string) *yaml.Node {
	for _, k := range path {
		if n = get(n, k); n == nil {
			return nil
		}
	}
	return n
}

// truthy is Go templates' truth of a value: false, 0, "", null and empty
// collections are false.
func truthy(n *yaml.Node) bool {
	switch n.Kind {
	case yaml.MappingNode, yaml.SequenceNode:
		return len(n.Content) > 0
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return false
		case "!!bool":
			b, _ := strconv.ParseBool(n.Value)
			return b
		case "!!int", "!!float":
			f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
			return err != nil || f != 0
		case "!!str":
			return n.Value != ""
		}
	}
	return true
}

func scalar(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }
