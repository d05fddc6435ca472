package fleet

import "github.com/strata-fleet/strata/internal/values"

// RenderConfig is config.yaml's render: mapping, a strata extension:
//
//	render:
//	  missingKeys: error   # or ignore (the reference generator's behaviour, the default)
type RenderConfig struct {
	// MissingKeys is MissingKeysIgnore or MissingKeysError: what a value's
	// reference to a key the values do not have ({{ .Values.cluster.regoin }})
	// renders to: an empty string, or an error naming the value (in pass 2,
	// and in pass 1 where a chart runs tpl on it: render/stricttpl.go).
	MissingKeys string
	Pos         values.Pos
}

// What a reference to a missing key does.
const (
	MissingKeysIgnore = "ignore"
	MissingKeysError  = "error"
)

func parseRender(r *values.Value) (RenderConfig, error) {
	rc := RenderConfig{MissingKeys: MissingKeysIgnore}
	if r == nil || r.Kind == values.Null {
		return rc, nil
	}
	path := []string{"render"}
	if r.Kind != values.Map {
		return rc, values.TypeError(r, path, values.Map)
	}
	if err := knownKeys(r, path, "missingKeys"); err != nil {
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
	return rc, nil
}
