package render

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/values"
)

// OutputDir is the directory of the rendered tree in a repository with the
// default layout; a fleet's own is its Config.Layout.Root().
const OutputDir = fleet.DefaultOutputRoot

// File is one output file: its slash path relative to the repository and
// its content.
type File struct {
	Path string
	Data []byte
}

// Target is one cluster type at one full-depth node of the sequence.
type Target struct {
	ClusterType *fleet.ClusterType
	Node        *fleet.Node
}

// ID is the target's identity, "<type>/<env>/<sector>/<region>": its path
// under rendered/ in the default layout, whatever the layout.
func (t Target) ID() string { return t.ClusterType.Name + "/" + t.Node.ID() }

// Dir is the target's output directory relative to the repository, where
// the fleet's layout puts it (fleet.Layout.Dir).
func (t Target) Dir() string { return t.ClusterType.Layout.Dir(t.ClusterType.Name, t.Node) }

// Output is a rendered target.
type Output struct {
	Target Target
	Values *values.Value
	// Files are Chart.yaml, values.yaml and templates/*.yaml in path order;
	// with layout.manifests, the plain manifests instead.
	Files []File
	// Beside are the target's files outside its directory: its plain
	// values file when the layout writes one (layout.values).
	Beside []File
}

// Renderer renders the targets of a fleet with one templates chart.
type Renderer struct {
	Fleet *fleet.Fleet
	Chart *Chart
	// NoShortcuts renders every target the general way: fresh values per
	// render, Helm's own template functions, the whole chart in pass 1 and
	// the whole text in pass 2, no cache of decoded documents (fast.go). The
	// output is the same; only tests that check that set it.
	NoShortcuts bool
	// StrictKeys makes a value's reference to a missing key an error
	// whatever config.yaml's render.missingKeys says (strata validate).
	StrictKeys bool
	// ChartForm gives every target strata's chart, whatever
	// layout.manifests says (strata validate checks the resources there,
	// with the positions of their templates).
	ChartForm bool

	docs  docCache
	plans planCache
	enc   values.Encoder
}

// Load loads the fleet in fsys and its templates chart (LoadChart), ready
// to render.
func Load(fsys fs.FS) (*Renderer, error) {
	f, err := fleet.Load(fsys)
	if err != nil {
		return nil, err
	}
	return loaded(fsys, f)
}

// LoadReusing is Load taking config.yaml as parsed (fleet.LoadReusing).
func LoadReusing(fsys fs.FS, parsed *fleet.Config) (*Renderer, error) {
	f, err := fleet.LoadReusing(fsys, parsed)
	if err != nil {
		return nil, err
	}
	return loaded(fsys, f)
}

// LoadScope is Load reading only the part of the fleet that the targets of
// s need (fleet.LoadScope): Targets lists those only.
func LoadScope(fsys fs.FS, s fleet.Scope) (*Renderer, error) {
	return LoadScopeReusing(fsys, s, nil)
}

// LoadScopeReusing is LoadScope reusing config.yaml as parsed
// (fleet.LoadScopeReusing).
func LoadScopeReusing(fsys fs.FS, s fleet.Scope, parsed *fleet.Config) (*Renderer, error) {
	f, err := fleet.LoadScopeReusing(fsys, s, parsed)
	if err != nil {
		return nil, err
	}
	return loaded(fsys, f)
}

// loaded loads the templates chart of fsys for the fleet f.
func loaded(fsys fs.FS, f *fleet.Fleet) (*Renderer, error) {
	chart, err := LoadChart(fsys)
	if err != nil {
		return nil, err
	}
	return &Renderer{Fleet: f, Chart: chart}, nil
}

// Targets lists every target of the fleet: cluster types in declaration
// order, nodes in rollout order, each cluster type at the nodes where it
// exists (config.yaml's at:).
func (r *Renderer) Targets() []Target {
	var out []Target
	for _, ct := range r.Fleet.ClusterTypes {
		for _, n := range ct.Targets {
			out = append(out, Target{ClusterType: ct, Node: n})
		}
	}
	return out
}

// TargetError is an error rendering one target (and, when Others is not
// zero, as many other targets that fail with the same error).
type TargetError struct {
	Target string
	Others int
	Err    error
}

func (e *TargetError) Error() string {
	switch e.Others {
	case 0:
		return "rendering " + e.Target + ": " + e.Err.Error()
	case 1:
		return "rendering " + e.Target + " and 1 other target: " + e.Err.Error()
	}
	return fmt.Sprintf("rendering %s and %d other targets: %s", e.Target, e.Others, e.Err.Error())
}
func (e *TargetError) Unwrap() error { return e.Err }

// Render renders one target.
func (r *Renderer) Render(t Target) (*Output, error) { return r.renderTarget(t, nil, nil) }

// renderTarget renders t with its values vals, or computes them when nil,
// under the time of run when it is not nil.
func (r *Renderer) renderTarget(t Target, vals *values.Value, run *run) (*Output, error) {
	b := newBudget(r.limits())
	b.run = run
	out, err := bounded(b, func() (*Output, error) { return r.render(t, vals, b) })
	if err != nil {
		return nil, &TargetError{Target: t.ID(), Err: err}
	}
	return out, nil
}

func (r *Renderer) render(t Target, vals *values.Value, b *budget) (*Output, error) {
	if vals == nil {
		var err error
		if vals, err = r.Fleet.TargetValues(t.ClusterType, t.Node); err != nil {
			return nil, err
		}
	}
	release := t.ClusterType.Name + "-apps"
	manifest, err := r.passOne(vals, release, b)
	if err != nil {
		return nil, err
	}
	dir := t.Dir() + "/templates"
	var docs []renderedDoc
	ok := false
	if !r.NoShortcuts {
		docs, ok = r.passTwoHoles(dir, manifest, vals, release+"-final", b)
	}
	if !ok || badDoc(docs) >= 0 {
		if docs, err = r.passTwoGeneral(dir, manifest, vals, release+"-final", b); err != nil {
			return nil, err
		}
	}
	out := &Output{Target: t, Values: vals}
	out.Files = append(out.Files,
		File{Path: t.Dir() + "/Chart.yaml", Data: chartYAML(t)},
		File{Path: t.Dir() + "/values.yaml", Data: r.enc.Encode(chartValues(t, vals))},
	)
	for _, d := range docs {
		out.Files = append(out.Files, File{Path: dir + "/" + d.name + ".yaml", Data: d.data})
	}
	sortFiles(out.Files)
	if t.ClusterType.Layout.Plain() && !r.ChartForm {
		if out.Files, err = plainFiles(t, out.Files, r.NoShortcuts); err != nil {
			return nil, err
		}
	}
	if f := t.ValuesFile(); f != "" {
		out.Beside = []File{{Path: f, Data: r.valuesFile(t, vals)}}
	}
	return out, nil
}

// valuesFileHeader starts every plain values file render writes.
const valuesFileHeader = "# Written by strata render from config/ (config.yaml's layout.values): edit config/, not this file.\n"

// valuesFile is the content of the plain values file of target t with
// the values vals: the layout's section, each item a top-level key, as it
// merged (its strings are not templates); {} when the target has none.
func (r *Renderer) valuesFile(t Target, vals *values.Value) []byte {
	sec := vals.Get(t.ClusterType.Layout.ValuesSection())
	if sec == nil || sec.Kind != values.Map || len(sec.Keys) == 0 {
		return []byte(valuesFileHeader + "{}\n")
	}
	return append([]byte(valuesFileHeader), r.enc.Encode(sec)...)
}

// chartValues are the values a target's values.yaml holds: all of them
// but the section its values file holds (layout.values), so that a change
// of those values changes only the values file.
func chartValues(t Target, vals *values.Value) *values.Value {
	if sec := t.ClusterType.Layout.ValuesSection(); sec != "" && vals.Get(sec) != nil {
		return vals.Delete(sec)
	}
	return vals
}

// ValuesFile is the path of the target's plain values file, "" when the
// layout writes none (fleet.Layout.ValuesFile).
func (t Target) ValuesFile() string {
	return t.ClusterType.Layout.ValuesFile(t.ClusterType.Name, t.Node)
}

// passTwoGeneral renders pass 2 of a target the general way: the whole output of
// pass 1 as a template, then a decode of the whole result. Its errors are
// the ones users see.
func (r *Renderer) passTwoGeneral(dir, manifest string, vals *values.Value, release string, b *budget) ([]renderedDoc, error) {
	return r.passTwoKeys(dir, manifest, vals, release, r.strict(), b)
}

// passTwoKeys is passTwoGeneral with references to missing keys errors
// when strict. A strict render whose only such references are guarded
// (default, hasKey, if...: guarded.go) renders them as Helm does without
// strict keys.
func (r *Renderer) passTwoKeys(dir, manifest string, vals *values.Value, release string, strict bool, b *budget) ([]renderedDoc, error) {
	final, err := passTwo(manifest, vals, release, !r.NoShortcuts, strict, b)
	if err == nil {
		err = b.output(len(final), "the second template pass rendered")
	}
	if err != nil {
		if e, cause := b.hit(); e != nil {
			return nil, e.located(cause, "", vals)
		}
		if e, ok := errors.AsType[*LimitError](err); ok {
			return nil, e
		}
		if strict {
			errs, guarded := missingKeyErrors(vals, release, b)
			if len(errs) > 0 {
				return nil, errors.Join(errs...)
			}
			if guarded && r.namePrefixError(vals, release, b) == nil {
				return r.passTwoKeys(dir, manifest, vals, release, false, b)
			}
		}
		if e := expressionError(vals, release, b); e != nil {
			return nil, e
		}
		if e := r.namePrefixError(vals, release, b); e != nil {
			return nil, e
		}
		return nil, fmt.Errorf("second template pass (the output of the templates chart, rendered again with the values): %s", templateMessage(err))
	}
	return r.decodeFinal(dir, final, vals)
}

// decodeFinal decodes the output of pass 2 into the target's documents.
func (r *Renderer) decodeFinal(dir, final string, vals *values.Value) ([]renderedDoc, error) {
	cache := &r.docs
	if r.NoShortcuts {
		cache = &docCache{}
	}
	docs, err := cache.decode(dir, final)
	if err != nil {
		if _, err := values.DecodeAll(dir, []byte(final)); err != nil {
			return nil, outputYAMLError(err, final)
		}
		return nil, err
	}
	if i := badDoc(docs); i >= 0 {
		return nil, r.docError(vals, final, docs, i)
	}
	return docs, nil
}

// namePrefix is config.yaml's render.namePrefix: what the built-in chart
// puts before the name of every resource an item without name: makes.
func (r *Renderer) namePrefix() string {
	if r.Fleet == nil {
		return ""
	}
	return r.Fleet.Config.Render.NamePrefix
}

// namePrefixError is the error of config.yaml's render.namePrefix when its
// template fails on its own with vals, at its file and line; else nil.
func (r *Renderer) namePrefixError(vals *values.Value, release string, b *budget) error {
	prefix := r.namePrefix()
	if !strings.Contains(prefix, "{{") {
		return nil
	}
	_, err := passTwo(prefix, vals, release, true, r.strict(), b)
	if err == nil {
		return nil
	}
	pos := r.Fleet.Config.Render.NamePrefixPos
	path := []string{"render", "namePrefix"}
	if m := missingKeyRE.FindStringSubmatch(templateMessage(err)); m != nil {
		errs, ok := unguardedErrors(values.NewString(prefix, pos), path, vals, m[1])
		if !ok {
			return missingKeyError(pos, path, m[1], m[2])
		}
		return errors.Join(errs...) // nil when every reference is guarded
	}
	return &values.Error{Pos: pos, Path: path, Msg: "template error in the name prefix: " + templateMessage(err),
		Hint: "the name prefix is rendered with the target's values, such as {{ .Values.cluster.cluster }}-"}
}

// passOne renders pass 1 of a target under b.
func (r *Renderer) passOne(vals *values.Value, release string, b *budget) (string, error) {
	manifest, err := r.Chart.passOne(vals, release, r.namePrefix(), !r.NoShortcuts, r.strict(), b)
	var ve *values.Error
	e, cause := b.hit()
	switch {
	case err == nil:
	case e != nil:
		return "", e.located(cause, r.Chart.Source, vals)
	case errors.As(err, &ve): // a value's template, at its file and line
		return "", err
	default:
		return "", fmt.Errorf("templates chart %s: %s", r.Chart.Source, trimError(err.Error()))
	}
	if err := b.output(len(manifest), "the templates chart "+r.Chart.Source+" rendered"); err != nil {
		return "", err
	}
	return manifest, nil
}

// limits are the render limits of the fleet.
func (r *Renderer) limits() fleet.RenderLimits {
	if r.Fleet == nil {
		return fleet.DefaultRenderLimits()
	}
	return r.Fleet.Config.Render.Limits
}

// strict reports whether references to missing keys are errors.
func (r *Renderer) strict() bool {
	return r.StrictKeys || r.Fleet != nil && r.Fleet.Config.Render.MissingKeys == fleet.MissingKeysError
}

// badDoc returns the index of the first document that has no usable
// metadata.name or the name of an earlier one, or -1.
func badDoc(docs []renderedDoc) int {
	seen := make(map[string]bool, len(docs))
	for i, d := range docs {
		if d.nameKind == values.Null || d.name == "" || (d.nameKind != values.String && d.nameKind != values.Int) ||
			safeFileName(d.name) != nil || seen[d.name] {
			return i
		}
		seen[d.name] = true
	}
	return -1
}

// docError explains what is wrong with the i-th rendered document: it has
// no usable metadata.name, or the name of an earlier one. It decodes the
// documents again: errors are the rare path.
func (r *Renderer) docError(vals *values.Value, final string, rendered []renderedDoc, i int) error {
	docs, err := values.DecodeAll("templates", []byte(final))
	if err != nil || i >= len(docs) {
		return fmt.Errorf("rendered document %d is not usable", i+1)
	}
	doc := docs[i]
	name := doc.Lookup("metadata", "name")
	if name == nil || name.Kind == values.Null || name.Text == "" {
		return fmt.Errorf("a rendered %s has no metadata.name:\n%s", kindOf(doc), indent(values.Encode(doc)))
	}
	if name.Kind != values.String && name.Kind != values.Int {
		return fmt.Errorf("a rendered %s has a metadata.name that is not a string", kindOf(doc))
	}
	if err := safeFileName(name.Text); err != nil {
		return r.nameError(vals, final, doc, fmt.Sprintf("%s %q cannot name a file", kindOf(doc), name.Text),
			"a resource's metadata.name names its file templates/<name>.yaml: use a plain name, without '/' or '\\', not '.' or '..'")
	}
	prev := doc
	for j := range i {
		if rendered[j].name == name.Text {
			prev = docs[j]
			break
		}
	}
	return &values.Error{Path: []string{"metadata", "name"},
		Msg: fmt.Sprintf("two resources of this target are named %q (%s and %s)", name.Text, kindOf(prev), kindOf(doc)),
		Pos: r.Chart.templateOf(final, doc), Also: []values.Pos{r.Chart.templateOf(final, prev)},
		Hint: fmt.Sprintf("each resource of a target needs its own name: it names the file templates/%s.yaml", name.Text)}
}

// nameError is an error about a rendered resource's metadata.name: at the
// value that holds the name, when one does, and at the template that
// rendered the resource.
func (r *Renderer) nameError(vals *values.Value, final string, doc *values.Value, msg, hint string) *values.Error {
	e := &values.Error{Path: []string{"metadata", "name"}, Msg: msg, Hint: hint}
	tmpl := r.Chart.templateOf(final, doc)
	if v := findString(vals, doc.Lookup("metadata", "name").Text); v != nil {
		e.Pos, e.Also = v.Pos, []values.Pos{tmpl}
	} else {
		e.Pos = tmpl
	}
	return e
}

// templateOf names the template of the chart that rendered doc, from the
// "# Source:" comment that precedes it in the rendered stream.
func (c *Chart) templateOf(final string, doc *values.Value) values.Pos {
	lines := strings.Split(final, "\n")
	for i := min(doc.Pos.Line, len(lines)) - 1; i >= 0; i-- {
		if src, ok := strings.CutPrefix(lines[i], "# Source: "); ok {
			_, rel, _ := strings.Cut(src, "/")
			if c.Source == ChartDir {
				return values.Pos{File: ChartDir + "/" + rel}
			}
			return values.Pos{File: "(built-in chart) " + rel}
		}
	}
	return values.Pos{File: c.Source}
}

// findString returns the first string leaf of v equal to s, or nil.
func findString(v *values.Value, s string) *values.Value {
	switch v.Kind {
	case values.String:
		if v.Text == s {
			return v
		}
	case values.Map:
		for _, c := range v.Vals {
			if f := findString(c, s); f != nil {
				return f
			}
		}
	case values.List:
		for _, c := range v.Items {
			if f := findString(c, s); f != nil {
				return f
			}
		}
	}
	return nil
}

func kindOf(doc *values.Value) string {
	if k := doc.Get("kind"); k != nil && k.Kind == values.String {
		return k.Text
	}
	return "document"
}

func safeFileName(s string) error {
	if s == "" || s == "." || s == ".." || strings.ContainsAny(s, "/\\\x00") || strings.ContainsFunc(s, notPrint) {
		return fmt.Errorf("it must be a plain file name")
	}
	return nil
}

// notPrint reports a character that does not print as itself: a line
// break, an escape sequence or a bidirectional override in a file name
// reaches every terminal that lists rendered/.
func notPrint(r rune) bool { return !strconv.IsPrint(r) }

func indent(b []byte) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(string(b), "\n"), "\n", "\n    ")
}

// outputYAMLError explains rendered output that is not valid YAML, quoting
// the offending line.
func outputYAMLError(err error, text string) error {
	if e, ok := errors.AsType[*values.Error](err); ok && e.Pos.Line > 0 {
		lines := strings.Split(text, "\n")
		if e.Pos.Line <= len(lines) {
			return fmt.Errorf("the rendered manifests are not valid YAML (%s) at this line:\n    %s\n    a value probably resolved to text that breaks the YAML around it; quote it or use toYaml",
				e.Msg, strings.TrimSpace(lines[e.Pos.Line-1]))
		}
	}
	return fmt.Errorf("the rendered manifests are not valid YAML: %w", err)
}

// chartYAML is the Chart.yaml of a target, as the reference writes it.
func chartYAML(t Target) []byte {
	id := t.ID()
	m := values.NewMap(values.Pos{})
	for _, kv := range [][2]string{
		{"apiVersion", "v2"},
		{"name", strings.ReplaceAll(id, "/", "-")},
		{"description", "Generated ArgoCD resources for " + id},
		{"type", "application"},
		{"version", "0.1.0"},
		{"appVersion", "1.0"},
	} {
		m.Set(kv[0], values.NewString(kv[1], values.Pos{}))
	}
	return values.Encode(m)
}

func sortFiles(files []File) {
	for i := 1; i < len(files); i++ {
		for j := i; j > 0 && files[j].Path < files[j-1].Path; j-- {
			files[j], files[j-1] = files[j-1], files[j]
		}
	}
}
