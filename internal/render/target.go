package render

import (
	"fmt"
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/values"
)

// OutputDir is the directory of the rendered tree in a repository.
const OutputDir = "rendered"

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

// ID is the target's path under rendered/: "<type>/<env>/<sector>/<region>".
func (t Target) ID() string { return t.ClusterType.Name + "/" + t.Node.ID() }

// Dir is the target's output directory relative to the repository.
func (t Target) Dir() string { return OutputDir + "/" + t.ID() }

// Output is a rendered target.
type Output struct {
	Target Target
	Values *values.Value
	Files  []File // Chart.yaml, values.yaml, templates/*.yaml, in path order
}

// Renderer renders the targets of a fleet with one templates chart.
type Renderer struct {
	Fleet *fleet.Fleet
	Chart *Chart
}

// Targets lists every target of the fleet: cluster types in declaration
// order, nodes in rollout order.
func (r *Renderer) Targets() []Target {
	var out []Target
	for _, ct := range r.Fleet.ClusterTypes {
		for _, n := range r.Fleet.Targets {
			out = append(out, Target{ClusterType: ct, Node: n})
		}
	}
	return out
}

// TargetError is an error rendering one target.
type TargetError struct {
	Target string
	Err    error
}

func (e *TargetError) Error() string { return "rendering " + e.Target + ": " + e.Err.Error() }
func (e *TargetError) Unwrap() error { return e.Err }

// Render renders one target.
func (r *Renderer) Render(t Target) (*Output, error) {
	out, err := r.render(t)
	if err != nil {
		return nil, &TargetError{Target: t.ID(), Err: err}
	}
	return out, nil
}

func (r *Renderer) render(t Target) (*Output, error) {
	vals, err := r.Fleet.TargetValues(t.ClusterType, t.Node)
	if err != nil {
		return nil, err
	}
	release := t.ClusterType.Name + "-apps"
	manifest, err := r.Chart.passOne(vals, release)
	if err != nil {
		return nil, fmt.Errorf("templates chart %s: %w", r.Chart.Source, err)
	}
	final, err := passTwo(manifest, vals, release+"-final")
	if err != nil {
		if e := expressionError(vals, release+"-final"); e != nil {
			return nil, e
		}
		return nil, fmt.Errorf("second template pass: %w", err)
	}
	docs, err := values.DecodeAll(t.Dir()+"/templates", []byte(final))
	if err != nil {
		return nil, outputYAMLError(err, final)
	}
	out := &Output{Target: t, Values: vals}
	out.Files = append(out.Files,
		File{Path: t.Dir() + "/Chart.yaml", Data: chartYAML(t)},
		File{Path: t.Dir() + "/values.yaml", Data: values.Encode(vals)},
	)
	seen := map[string]*values.Value{}
	for _, doc := range docs {
		name := doc.Lookup("metadata", "name")
		if name == nil || name.Kind == values.Null || name.Text == "" {
			return nil, fmt.Errorf("a rendered %s has no metadata.name:\n%s", kindOf(doc), indent(values.Encode(doc)))
		}
		if name.Kind != values.String && name.Kind != values.Int {
			return nil, fmt.Errorf("a rendered %s has a metadata.name that is not a string", kindOf(doc))
		}
		if err := safeFileName(name.Text); err != nil {
			return nil, fmt.Errorf("resource name %q cannot name a file: %v", name.Text, err)
		}
		if prev := seen[name.Text]; prev != nil {
			return nil, fmt.Errorf("two resources named %q: a %s and a %s; each resource of a target needs its own name (it names the file templates/%s.yaml)",
				name.Text, kindOf(prev), kindOf(doc), name.Text)
		}
		seen[name.Text] = doc
		out.Files = append(out.Files, File{Path: t.Dir() + "/templates/" + name.Text + ".yaml", Data: values.Encode(doc)})
	}
	sortFiles(out.Files)
	return out, nil
}

func kindOf(doc *values.Value) string {
	if k := doc.Get("kind"); k != nil && k.Kind == values.String {
		return k.Text
	}
	return "document"
}

func safeFileName(s string) error {
	if s == "." || s == ".." || strings.ContainsAny(s, "/\\\x00") {
		return fmt.Errorf("it must be a plain file name")
	}
	return nil
}

func indent(b []byte) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(string(b), "\n"), "\n", "\n    ")
}

// outputYAMLError explains rendered output that is not valid YAML, quoting
// the offending line.
func outputYAMLError(err error, text string) error {
	if e, ok := err.(*values.Error); ok && e.Pos.Line > 0 {
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
