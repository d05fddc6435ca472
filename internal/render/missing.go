package render

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/strata-fleet/strata/internal/memo"
	"github.com/strata-fleet/strata/internal/values"
)

// missingKeyRE finds, in an error of Go's templates with missingkey=error,
// the expression and the key it does not find.
var missingKeyRE = regexp.MustCompile(`at <([^>]*)>: map has no entry for key "([^"]*)"`)

// missingKeyErrors renders each string of vals that holds a template on its
// own, strictly, and returns an error for every one that refers to a key
// the values do not have, at the value's file and line, unless the
// reference is guarded (guarded.go): guarded reports that some failed only
// for references guarded so, which a lenient render renders as meant.
func missingKeyErrors(vals *values.Value, release string, b *budget) (errs []error, guarded bool) {
	shared := goValues(vals, true)
	walkStrings(vals, func(path []string, v *values.Value) {
		if !strings.Contains(v.Text, "{{") || allKeysFound(v.Text, shared) {
			return
		}
		_, err := passTwo(v.Text, vals, release, true, true, b)
		if err == nil {
			return
		}
		if m := missingKeyRE.FindStringSubmatch(templateMessage(err)); m != nil {
			found, ok := unguardedErrors(v, path, vals, m[1])
			errs = append(errs, found...)
			if !ok {
				errs = append(errs, missingKeyError(v.Pos, path, m[1], m[2]))
			}
			guarded = guarded || ok && len(found) == 0
		}
	})
	return errs, guarded
}

// unguardedErrors returns the errors of the references of v's text to keys
// vals lacks that no guard covers (References), when the strict engine's
// failure on expr is one the analysis can judge (ok): a reference of the
// text itself from the top of the data (.Values.x, $.Values.x, .name).
func unguardedErrors(v *values.Value, path []string, vals *values.Value, expr string) (errs []error, ok bool) {
	want := strings.TrimPrefix(strings.TrimPrefix(expr, "$"), ".")
	for _, r := range References(v.Text) {
		// The analysis sees the reference the engine failed on (not one
		// in a text given to tpl or include, or through a variable).
		ok = ok || strings.Join(r.Path, ".") == want
		if i := r.Missing(vals); i >= 0 {
			errs = append(errs, missingKeyError(v.Pos, path, "."+strings.Join(r.Path, "."), r.Path[i]))
		}
	}
	if !ok {
		return nil, false
	}
	return errs, true
}

// directTexts holds, by template text, its actions as direct.go evaluates
// them (nil when one needs the engine, or the text is not straight-line
// template code), while strings use them (package memo).
var directTexts memo.Table[string, []direct]

// allKeysFound reports whether the template text certainly refers to no
// key the values v do not have: its actions are all references and
// constants (direct.go), and every key of every reference's path is there
// under a map. Helm's engine then cannot fail on a missing key, and a
// value's text need not run through it to find one (a string whose
// references reach a non-map value, or anything else, still does).
func allKeysFound(text string, v map[string]any) bool {
	ds, ok := directTexts.Get(text)
	if !ok {
		if spans := actionSpans(text); spans != nil {
			if nodes := straightLine(text, spans); nodes != nil {
				ds = directActions(nodes)
			}
		}
		directTexts.Put(text, ds)
	}
	if ds == nil {
		return false
	}
	for _, d := range ds {
		if _, n := follow(v, d.path); n < len(d.path) {
			return false
		}
	}
	return true
}

// missingKeyError is the error of a value at pos whose expression expr
// refers to key, which the values do not have.
func missingKeyError(pos values.Pos, path []string, expr, key string) error {
	hint := "check the spelling against the target's values (strata explain); config.yaml's render.missingKeys: ignore renders it as '' instead"
	if !strings.HasPrefix(expr, ".Values.") && !strings.HasPrefix(expr, "$") {
		hint = fmt.Sprintf("strata renders values against .Values: an expression meant for Argo CD's own templating (an ApplicationSet's template) is written {{ argocd %q }}", expr)
	}
	return &values.Error{Pos: pos, Path: path,
		Msg:  fmt.Sprintf("%s refers to a key the values do not have: %q", expr, key),
		Hint: hint}
}

// walkStrings calls f with every string of v and its key path.
func walkStrings(v *values.Value, f func(path []string, v *values.Value)) {
	var walk func(path []string, v *values.Value)
	walk = func(path []string, v *values.Value) {
		switch v.Kind {
		case values.Map:
			for i, k := range v.Keys {
				walk(append(path[:len(path):len(path)], k), v.Vals[i])
			}
		case values.List:
			for i, it := range v.Items {
				walk(append(path[:len(path):len(path)], strconv.Itoa(i)), it)
			}
		case values.String:
			f(path, v)
		}
	}
	walk(nil, v)
}

// maxErrorLen bounds the text of a template error: Helm's error for an
// include that recurses without end repeats every nested call (about 100 KB).
const maxErrorLen = 1200

// trimError keeps the start and the end of a long template error, which
// say where it started and what failed, and says how much it leaves out.
func trimError(msg string) string {
	if len(msg) <= maxErrorLen {
		return msg
	}
	head, tail := msg[:maxErrorLen*2/3], msg[len(msg)-maxErrorLen/3:]
	return fmt.Sprintf("%s\n    ... (%d bytes of nested calls left out) ...\n%s", head, len(msg)-len(head)-len(tail), tail)
}
