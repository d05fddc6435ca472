package validate

import (
	"strconv"

	"github.com/strata-fleet/strata/internal/values"
)

// child returns the value under one path segment: a key of a mapping or an
// index of a list.
func child(v *values.Value, seg string) *values.Value {
	if v == nil {
		return nil
	}
	switch v.Kind {
	case values.Map:
		return v.Get(seg)
	case values.List:
		if i, err := strconv.Atoi(seg); err == nil && i >= 0 && i < len(v.Items) {
			return v.Items[i]
		}
	}
	return nil
}

// deepest follows segs from v as far as they exist and returns the last
// value reached and how many segments it took.
func deepest(v *values.Value, segs []string) (*values.Value, int) {
	n := 0
	for _, seg := range segs {
		c := child(v, seg)
		if c == nil {
			break
		}
		v, n = c, n+1
	}
	return v, n
}

// sectionOf is the values section whose items the built-in templates render
// as resources of kind.
var sectionOf = map[string]string{"Application": "applications", "ApplicationSet": "applicationsets", "AppProject": "appprojects"}

// valuesPath maps a field path of a rendered resource to the key path in the
// target's values that the templates render it from: spec.X comes from
// <section>.<name>.X, metadata.labels from additionalLabels, and so on. It
// returns nil for fields the templates make up.
func valuesPath(kind, name string, segs []string, item *values.Value) []string {
	section := sectionOf[kind]
	if section == "" {
		return nil
	}
	base := []string{section, name}
	if len(segs) == 0 {
		return base
	}
	switch segs[0] {
	case "spec":
		return append(base, segs[1:]...)
	case "metadata":
		if len(segs) < 2 {
			return base
		}
		switch segs[1] {
		case "labels":
			return append(append(base, "additionalLabels"), segs[2:]...)
		case "annotations":
			if len(segs) == 3 && segs[2] == "argocd.argoproj.io/sync-wave" && item.Get("syncWave") != nil {
				return append(base, "syncWave")
			}
			return append(append(base, "additionalAnnotations"), segs[2:]...)
		case "namespace", "finalizers":
			return append(base, segs[1:]...)
		}
	}
	return base
}

// sourcePos returns where the configuration sets the field at segs of the
// rendered resource kind/name, given the target's merged values: the
// position of the value the field is rendered from or, for a field that is
// missing there (a required field left out), of the nearest value above it.
// ok is false when no item of the values renders the resource.
func sourcePos(vals *values.Value, kind, name string, segs []string) (values.Pos, bool) {
	section := sectionOf[kind]
	item := vals.Lookup(section, name)
	if item == nil {
		return values.Pos{}, false
	}
	vp := valuesPath(kind, name, segs, item)
	v, _ := deepest(vals, vp)
	if v == nil || v.Pos.File == "" {
		return values.Pos{}, false
	}
	return v.Pos, true
}
