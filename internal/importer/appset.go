package importer

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"regexp"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	"gopkg.in/yaml.v3"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/strata-fleet/strata/internal/values"
)

// An ApplicationSet's Applications, evaluated as Argo CD's ApplicationSet
// controller (v3) evaluates them, for the formats whose objects are made at
// run time from cluster Secrets. What is evaluated, by the controller's
// documented rules:
//
//   - generators clusters (selector: matchLabels, matchExpressions; values
//     rendered with the cluster's parameters), git (files: the file's keys
//     and path.*), list (elements, elementsYaml) and matrix (two children,
//     the second rendered with each parameter set of the first; the first's
//     keys win where both set one);
//   - goTemplate: true only, with sprig's functions but env, expandenv and
//     getHostByName, and toYaml, fromYaml, fromYamlArray, normalize;
//     goTemplateOptions (missingkey=error);
//   - every string of the template rendered, mapping keys too; then
//     templatePatch rendered and merged over the Application (mappings key
//     by key, lists and scalars replaced, null deletes; project kept);
//     metadata.namespace the ApplicationSet's; the resources finalizer added
//     when the template has none and syncPolicy does not preserve resources.
//
// A git generator reads the file from the repository being imported, at the
// tree imported (the report says so). Anything else is an error naming the
// ApplicationSet's file and line: an import never guesses what the
// controller would make.

// clusterSecret is an Argo CD cluster Secret as the clusters generator
// reads it.
type clusterSecret struct {
	Name, Server        string
	Labels, Annotations map[string]string
}

// generated is one Application of an ApplicationSet and the cluster whose
// parameters made it ("" when no clusters generator took part).
type generated struct {
	App     map[string]any
	Cluster string
}

// appSetEval evaluates one ApplicationSet.
type appSetEval struct {
	at       string // file:line of the ApplicationSet
	fsys     fs.FS
	dir      string // the repository's root in fsys: git files paths are relative to it
	show     func(string) string
	options  []string
	clusters []clusterSecret
	// reads lists the git files read, for the report.
	reads []string
}

func (e *appSetEval) errorf(format string, args ...any) error {
	return &values.Error{Pos: posOf(e.at), Msg: fmt.Sprintf(format, args...)}
}

// evalAppSet returns the Applications set (an ApplicationSet read from at)
// makes for clusters.
func evalAppSet(set *yaml.Node, at string, fsys fs.FS, dir string, show func(string) string, clusters []clusterSecret) ([]generated, []string, error) {
	e := &appSetEval{at: at, fsys: fsys, dir: dir, show: show, clusters: clusters}
	var obj map[string]any
	if err := set.Decode(&obj); err != nil {
		return nil, nil, e.errorf("ApplicationSet: %v", err)
	}
	spec, _ := obj["spec"].(map[string]any)
	if spec["goTemplate"] != true {
		return nil, nil, e.errorf("ApplicationSet without goTemplate: true: strata import evaluates Go templates only")
	}
	for _, o := range asList(spec["goTemplateOptions"]) {
		s, ok := o.(string)
		if !ok {
			return nil, nil, e.errorf("goTemplateOptions: %v is not a string", o)
		}
		e.options = append(e.options, s)
	}
	tmpl, _ := spec["template"].(map[string]any)
	patch, _ := spec["templatePatch"].(string)
	preserve := false
	if sp, ok := spec["syncPolicy"].(map[string]any); ok {
		preserve = sp["preserveResourcesOnDeletion"] == true
	}
	md, _ := obj["metadata"].(map[string]any)
	ns, _ := md["namespace"].(string)
	var out []generated
	for i, g := range asList(spec["generators"]) {
		gen, ok := g.(map[string]any)
		if !ok {
			return nil, nil, e.errorf("generators[%d]: not a mapping", i)
		}
		params, err := e.generate(gen, nil)
		if err != nil {
			var ve *values.Error
			if errors.As(err, &ve) && ve.Path == nil {
				ve.Path = []string{"spec", "generators", fmt.Sprint(i)}
			}
			return nil, nil, err
		}
		for _, p := range params {
			app, err := e.application(tmpl, patch, p, preserve, ns)
			if err != nil {
				return nil, nil, err
			}
			name, _ := p["name"].(string)
			if at := noValue(app, ""); at != "" {
				return nil, nil, e.errorf("the Application for cluster %s holds %q at %s: a template reads a key its parameters lack, which Argo CD writes as that text; strata's render (Helm's engine) cannot write it",
					name, "<no value>", at)
			}
			if spec, _ := app["spec"].(map[string]any); spec["project"] == nil || spec["project"] == "" {
				return nil, nil, e.errorf("the Application for cluster %s has no spec.project (Argo CD reads it as default, strata's chart needs it): write project: default", name)
			}
			out = append(out, generated{App: app, Cluster: name})
		}
	}
	return out, e.reads, nil
}

// generate returns the parameter sets of one generator; with, when not nil,
// are the parameters its strings are rendered with first (a matrix's second
// child).
func (e *appSetEval) generate(gen map[string]any, with map[string]any) ([]map[string]any, error) {
	if with != nil {
		r, err := e.replace(gen, with)
		if err != nil {
			return nil, err
		}
		gen = r.(map[string]any)
	}
	if len(gen) != 1 {
		return nil, e.errorf("a generator with %d keys (%s): strata import evaluates one generator per entry", len(gen), strings.Join(sortedKeys(gen), ", "))
	}
	for kind, v := range gen {
		body, _ := v.(map[string]any)
		switch kind {
		case "clusters":
			return e.clustersGen(body)
		case "git":
			return e.gitGen(body)
		case "list":
			return e.listGen(body)
		case "matrix":
			return e.matrixGen(body)
		default:
			return nil, e.errorf("generator %s: strata import evaluates the clusters, git (files), list and matrix generators only", kind)
		}
	}
	return nil, nil
}

// application renders the template and its patch with the parameters p.
func (e *appSetEval) application(tmpl map[string]any, patch string, p map[string]any, preserve bool, ns string) (map[string]any, error) {
	r, err := e.replace(tmpl, p)
	if err != nil {
		return nil, err
	}
	app := map[string]any{"apiVersion": argoAPIVersion, "kind": "Application"}
	rm, _ := r.(map[string]any)
	md, _ := rm["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
	}
	if len(asList(md["finalizers"])) == 0 && !preserve {
		md["finalizers"] = []any{"resources-finalizer.argocd.argoproj.io"}
	}
	app["metadata"] = md
	if spec, ok := rm["spec"]; ok {
		app["spec"] = spec
	}
	if patch != "" {
		text, err := e.render(patch, p)
		if err != nil {
			return nil, err
		}
		var pm map[string]any
		if err := yaml.Unmarshal([]byte(text), &pm); err != nil {
			return nil, e.errorf("templatePatch, as rendered for %v: %v", p["name"], err)
		}
		spec, _ := app["spec"].(map[string]any)
		project := spec["project"]
		app = patchMerge(app, pm)
		if spec, ok := app["spec"].(map[string]any); ok && project != nil {
			spec["project"] = project
		}
	}
	md, _ = app["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		app["metadata"] = md
	}
	md["namespace"] = ns
	return app, nil
}

// patchMerge merges patch over m: mappings key by key, lists and scalars
// replaced, null deletes (a strategic merge patch over a type whose lists
// have no merge keys, as an Application's).
func patchMerge(m, patch map[string]any) map[string]any {
	out := maps.Clone(m)
	for k, v := range patch {
		if v == nil {
			delete(out, k)
			continue
		}
		if pm, ok := v.(map[string]any); ok {
			if om, ok := out[k].(map[string]any); ok {
				out[k] = patchMerge(om, pm)
				continue
			}
			out[k] = patchMerge(map[string]any{}, pm)
			continue
		}
		out[k] = v
	}
	return out
}

// replace renders every string of v, mapping keys too, with p.
func (e *appSetEval) replace(v any, p map[string]any) (any, error) {
	switch v := v.(type) {
	case string:
		return e.render(v, p)
	case map[string]any:
		out := make(map[string]any, len(v))
		for _, k := range sortedKeys(v) {
			x, err := e.replace(v[k], p)
			if err != nil {
				return nil, err
			}
			key, err := e.render(k, p)
			if err != nil {
				return nil, err
			}
			out[key] = x
		}
		return out, nil
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			r, err := e.replace(x, p)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	return v, nil
}

// render executes text as a Go template with p.
func (e *appSetEval) render(text string, p map[string]any) (string, error) {
	t := template.New("ApplicationSet").Funcs(appSetFuncs)
	for _, o := range e.options {
		t = t.Option(o)
	}
	t, err := t.Parse(text)
	if err != nil {
		return "", e.errorf("template %q: %v", firstLine(text), err)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, p); err != nil {
		return "", e.errorf("template for cluster %v: %v", p["name"], err)
	}
	return b.String(), nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ..."
	}
	return s
}

// appSetFuncs are the ApplicationSet controller's template functions.
var appSetFuncs = func() template.FuncMap {
	f := sprig.GenericFuncMap()
	delete(f, "env")
	delete(f, "expandenv")
	delete(f, "getHostByName")
	f["normalize"] = normalize
	f["toYaml"] = func(v any) (string, error) {
		data, err := sigsyaml.Marshal(v)
		return strings.TrimSuffix(string(data), "\n"), err
	}
	f["fromYaml"] = func(s string) (map[string]any, error) {
		m := map[string]any{}
		return m, sigsyaml.Unmarshal([]byte(s), &m)
	}
	f["fromYamlArray"] = func(s string) ([]any, error) {
		a := []any{}
		return a, sigsyaml.Unmarshal([]byte(s), &a)
	}
	return f
}()

var notDNS = regexp.MustCompile(`[^-a-z0-9.]`)

// normalize is the controller's nameNormalized: lower case, other
// characters than letters, digits, '-' and '.' as '-', at most 253, no '-'
// or '.' at the ends.
func normalize(s string) string {
	s = notDNS.ReplaceAllString(strings.ToLower(s), "-")
	if len(s) > 253 {
		s = s[:253]
	}
	return strings.Trim(s, "-.")
}

// noValue returns the path of the first string of v that holds "<no
// value>", what text/template prints for a missing key; "" if none does.
func noValue(v any, at string) string {
	switch v := v.(type) {
	case string:
		if strings.Contains(v, "<no value>") {
			return strings.TrimPrefix(at, ".")
		}
	case map[string]any:
		for _, k := range sortedKeys(v) {
			if p := noValue(v[k], at+"."+k); p != "" {
				return p
			}
		}
	case []any:
		for i, x := range v {
			if p := noValue(x, fmt.Sprintf("%s[%d]", at, i)); p != "" {
				return p
			}
		}
	}
	return ""
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}
