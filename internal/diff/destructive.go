package diff

import (
	"fmt"
	"strings"

	"github.com/strata-fleet/strata/internal/values"
)

// resourcesFinalizer is Argo CD's finalizer that makes deleting an
// Application delete the resources it manages (with /foreground or
// /background after it, the same).
const resourcesFinalizer = "resources-finalizer.argocd.argoproj.io"

// Deletion says what Argo CD deletes when a removed resource's deletion is
// synced.
type Deletion struct {
	// Workloads is true when the Kubernetes resources the Application
	// manages go with it: its resources finalizer cascades.
	Workloads bool `json:"workloads"`
	// Generated is true for an ApplicationSet: the Applications it
	// generates are deleted with it (unless its syncPolicy preserves
	// them: then false).
	Generated bool `json:"generated"`
}

// deletionOf says what deleting a removed Application or ApplicationSet
// does, from its last rendered text; nil for other files.
func deletionOf(kind, file string, before []byte) *Deletion {
	if kind != "Application" && kind != "ApplicationSet" {
		return nil
	}
	d := &Deletion{}
	v, err := values.Decode(file, before)
	if err != nil {
		return d
	}
	if fs := v.Get("metadata").Get("finalizers"); fs != nil && fs.Kind == values.List {
		for _, f := range fs.Items {
			if f.Kind == values.String && strings.HasPrefix(f.Text, resourcesFinalizer) {
				d.Workloads = true
			}
		}
	}
	if kind == "ApplicationSet" {
		p := v.Get("spec").Get("syncPolicy").Get("preserveResourcesOnDeletion")
		d.Generated = p == nil || p.Kind != values.Bool || p.Text != "true"
	}
	return d
}

// Deletions lists the removed Applications and ApplicationSets, as
// "target: name (kind)" with what goes with them, in rollout order.
func (r *Result) Deletions() []string {
	var out []string
	for _, t := range r.Changes {
		for _, f := range t.Files {
			if f.Deletes == nil {
				continue
			}
			s := fmt.Sprintf("%s: %s (%s)", t.Target, f.Name, f.Kind)
			switch {
			case f.Deletes.Workloads && f.Deletes.Generated:
				s += ", its generated Applications and, with the resources finalizer, their workloads"
			case f.Deletes.Workloads:
				s += " and, with the resources finalizer, its workloads"
			case f.Deletes.Generated:
				s += " and its generated Applications"
			}
			out = append(out, s)
		}
	}
	return out
}
