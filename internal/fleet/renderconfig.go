package fleet

import (
	"strings"
	"unicode"

	"github.com/strata-fleet/strata/internal/values"
)

// RenderConfig is config.yaml's render: mapping, a strata extension:
//
//	render:
//	  missingKeys: error   # or ignore (the reference generator's behaviour, the default)
//	  namePrefix: "{{ .Values.cluster.cluster }}-"
//	  limits: {timePerTarget: 30s, outputPerTarget: 64MiB}   # RenderLimits
type RenderConfig struct {
	// MissingKeys is MissingKeysIgnore or MissingKeysError: what a value's
	// reference to a key the values do not have ({{ .Values.cluster.regoin }})
	// renders to: an empty string, or an error naming the value (in pass 2,
	// and in pass 1 where a chart runs tpl on it: render/stricttpl.go).
	MissingKeys string
	// NamePrefix goes before the name of every resource the built-in chart
	// makes from an item without name: (the central model: a hub's Argo CD
	// holds the Applications of all its spokes, which need names of their
	// own). It may hold templates of the values, rendered in pass 2.
	NamePrefix    string
	NamePrefixPos values.Pos
	Limits        RenderLimits
	Pos           values.Pos
}

// What a reference to a missing key does.
const (
	MissingKeysIgnore = "ignore"
	MissingKeysError  = "error"
)

func parseRender(r *values.Value) (RenderConfig, error) {
	rc := RenderConfig{MissingKeys: MissingKeysIgnore, Limits: DefaultRenderLimits()}
	if r == nil || r.Kind == values.Null {
		return rc, nil
	}
	path := []string{"render"}
	if r.Kind != values.Map {
		return rc, values.TypeError(r, path, values.Map)
	}
	if err := knownKeys(r, path, "missingKeys", "namePrefix", "limits"); err != nil {
		return rc, err
	}
	rc.Pos = r.Pos
	if m := r.Get("missingKeys"); m != nil {
		switch m.Text {
		case MissingKeysIgnore, MissingKeysError:
			rc.MissingKeys = m.Text
		default:
			return rc, &values.Error{Pos: m.Pos, Path: append(path, "missingKeys"), Msg: "expected ignore or error, got " + describe(m),
				Hint: "error: a reference to a missing key in a value is an error naming the value; ignore renders it as '' (the reference generator)"}
		}
	}
	if p := r.Get("namePrefix"); p != nil {
		if p.Kind != values.String {
			return rc, values.TypeError(p, append(path, "namePrefix"), values.String)
		}
		if strings.ContainsAny(p.Text, "\"\\") || strings.ContainsFunc(p.Text, unicode.IsControl) {
			return rc, &values.Error{Pos: p.Pos, Path: append(path, "namePrefix"), Msg: "the name prefix cannot hold \", \\ or control characters",
				Hint: "it is written into a double-quoted name; in a template, write strings in backquotes: {{ printf `%s-` .Values.cluster.cluster }}"}
		}
		rc.NamePrefix, rc.NamePrefixPos = p.Text, p.Pos
	}
	var err error
	rc.Limits, err = parseRenderLimits(r.Get("limits"), append(path[:1:1], "limits"))
	return rc, err
}
