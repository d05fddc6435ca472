package validate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/render"
	"github.com/strata-fleet/strata/internal/values"
)

// CheckReference: a value's template refers to a key the values do not
// have, unguarded, so that it renders an empty string.
const CheckReference = "reference"

// RuleMissingKey names the reference check's one rule.
const RuleMissingKey = "missing-key"

// referenceKey identifies a finding of the reference check across targets.
type referenceKey struct {
	pos  values.Pos
	expr string
}

// missingReferences reports each value's template reference to a key the
// target's values do not have and nothing guards: it renders an empty string. The
// values' strings are checked, and config.yaml's render.namePrefix, which
// is rendered against them too. One finding per value and expression,
// however many targets it is missing in, with their number.
func missingReferences(f *fleet.Fleet, outs []*render.Output) []Finding {
	var prefix *values.Value
	if rc := f.Config.Render; strings.Contains(rc.NamePrefix, "{{") {
		prefix = values.NewString(rc.NamePrefix, rc.NamePrefixPos)
	}
	parsed := map[string][]render.Reference{}
	type found struct {
		fd      Finding
		targets []string
	}
	byKey := map[referenceKey]*found{}
	var order []referenceKey
	for _, out := range outs {
		check := func(path []string, v *values.Value) {
			if !strings.Contains(v.Text, "{{") {
				return
			}
			refs, ok := parsed[v.Text]
			if !ok {
				refs = render.References(v.Text)
				parsed[v.Text] = refs
			}
			for _, r := range refs {
				i := r.Missing(out.Values)
				if i < 0 {
					continue
				}
				expr := "." + strings.Join(r.Path, ".")
				k := referenceKey{v.Pos, expr}
				if f := byKey[k]; f != nil {
					f.targets = append(f.targets, out.Target.ID())
					continue
				}
				byKey[k] = &found{fd: referenceFinding(v.Pos, path, expr, r.Path[i]), targets: []string{out.Target.ID()}}
				order = append(order, k)
			}
		}
		walkValueStrings(out.Values, nil, check)
		if prefix != nil {
			check([]string{"render", "namePrefix"}, prefix)
		}
	}
	var findings []Finding
	for _, k := range order {
		f := byKey[k]
		if n := len(f.targets); n > 1 {
			f.fd.Message += fmt.Sprintf(" (in %d targets: %s and %d more)", n, f.targets[0], n-1)
		} else {
			f.fd.Message += " (in " + f.targets[0] + ")"
		}
		findings = append(findings, f.fd)
	}
	return findings
}

// referenceFinding is the finding of the value at pos (key path path)
// whose expression expr refers to key, which the values do not have.
func referenceFinding(pos values.Pos, path []string, expr, key string) Finding {
	fix := fmt.Sprintf("check the spelling against the target's values (strata explain), or give it a default where it may be unset: {{ %s | default \"...\" }}", expr)
	if !strings.HasPrefix(expr, ".Values.") {
		fix = fmt.Sprintf("strata renders values against .Values: an expression meant for Argo CD's own templating (an ApplicationSet's template) is written {{ argocd %q }}", expr)
	}
	return Finding{Severity: Error, Check: CheckReference, Rule: RuleMissingKey, File: pos.File, Line: pos.Line,
		Path:    values.PathString(path),
		Message: fmt.Sprintf("%s refers to a key the values do not have: %q, and renders ''; %s", expr, key, fix)}
}

// walkValueStrings calls f with every string of v and its key path.
func walkValueStrings(v *values.Value, path []string, f func(path []string, v *values.Value)) {
	switch v.Kind {
	case values.Map:
		for i, k := range v.Keys {
			walkValueStrings(v.Vals[i], append(slices.Clip(path), k), f)
		}
	case values.List:
		for i, it := range v.Items {
			walkValueStrings(it, append(slices.Clip(path), strconv.Itoa(i)), f)
		}
	case values.String:
		f(path, v)
	}
}
