package fleet

import (
	"strconv"

	"github.com/strata-fleet/strata/internal/values"
)

// Roots is config.yaml's roots: key (a strata extension): how the root
// objects strata bootstrap writes sync.
//
//	roots:
//	  syncPolicy:
//	    automated: {prune: true, selfHeal: true}
//	    syncOptions: [ServerSideApply=true]
type Roots struct {
	// SyncPolicy is the roots' spec.syncPolicy, as written (nil: strata's,
	// automated with prune and selfHeal); integers are int64, as the
	// Kubernetes API machinery reads them.
	SyncPolicy map[string]any
	Pos        values.Pos
}

// syncPolicyKeys are the fields of Argo CD's SyncPolicy.
var syncPolicyKeys = []string{"automated", "syncOptions", "retry", "managedNamespaceMetadata"}

func parseRoots(v *values.Value) (*Roots, error) {
	if v == nil || v.Kind == values.Null {
		return nil, nil
	}
	path := []string{"roots"}
	if v.Kind != values.Map {
		return nil, values.TypeError(v, path, values.Map)
	}
	if err := knownKeys(v, path, "syncPolicy"); err != nil {
		return nil, err
	}
	r := &Roots{Pos: v.Pos}
	if sp := v.Get("syncPolicy"); sp != nil {
		spath := append(path[:1:1], "syncPolicy")
		if sp.Kind != values.Map {
			e := values.TypeError(sp, spath, values.Map)
			e.Hint = "an Application's spec.syncPolicy: {automated: {prune: true, selfHeal: true}, syncOptions: [ServerSideApply=true]}"
			return nil, e
		}
		if err := knownKeys(sp, spath, syncPolicyKeys...); err != nil {
			return nil, err
		}
		if o := sp.Get("syncOptions"); o != nil && o.Kind != values.List {
			return nil, values.TypeError(o, append(spath, "syncOptions"), values.List)
		}
		r.SyncPolicy, _ = plain(sp).(map[string]any)
	}
	return r, nil
}

// plain is v as the Kubernetes API machinery's unstructured objects hold
// it: mappings as map[string]any, lists as []any, integers as int64.
func plain(v *values.Value) any {
	switch v.Kind {
	case values.Int:
		if n, err := strconv.ParseInt(v.Text, 0, 64); err == nil {
			return n
		}
	case values.Map:
		m := make(map[string]any, len(v.Keys))
		for i, k := range v.Keys {
			m[k] = plain(v.Vals[i])
		}
		return m
	case values.List:
		l := make([]any, len(v.Items))
		for i, it := range v.Items {
			l[i] = plain(it)
		}
		return l
	}
	return v.Interface()
}
