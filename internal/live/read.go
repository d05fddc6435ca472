package live

import (
	"context"
	"fmt"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/strata-fleet/strata/internal/fleet"
)

// Options tune Read.
type Options struct {
	// Namespace is Argo CD's namespace on every cluster that runs it
	// (default argocd).
	Namespace string
	// PageSize is how many objects one page of a list holds (default 500).
	PageSize int64
}

func (o Options) namespace() string {
	if o.Namespace == "" {
		return DefaultNamespace
	}
	return o.Namespace
}

// Instance is what one Argo CD holds.
type Instance struct {
	// Cluster is the cluster of the inventory that runs it.
	Cluster   string `json:"cluster"`
	Namespace string `json:"namespace"`
	// Error says why it could not be read; it is then "unreachable".
	Error           string   `json:"error,omitempty"`
	Applications    []App    `json:"-"`
	ApplicationSets []AppSet `json:"-"`
	// ResourceVersion is the list's, from which [Watch] continues.
	ResourceVersion string `json:"-"`
}

// App is what strata reads of an Application.
type App struct {
	Name string `json:"name"`
	// Owner is the ApplicationSet that made it, if one did.
	Owner string `json:"owner,omitempty"`
	// Source of the Application (its first, for several): where it
	// deploys from, and, for a root Application, the cluster its Helm
	// values name (helm.valuesObject.cluster.name).
	RepoURL        string `json:"repoURL,omitempty"`
	Path           string `json:"path,omitempty"`
	TargetRevision string `json:"targetRevision,omitempty"`
	ClusterValue   string `json:"-"`
	// Sync and Health are status.sync.status and status.health.status;
	// Revision the revision it is synced to (status.sync.revision, or the
	// first of status.sync.revisions).
	Sync          string `json:"sync,omitempty"`
	Health        string `json:"health,omitempty"`
	HealthMessage string `json:"healthMessage,omitempty"`
	Revision      string `json:"revision,omitempty"`
	// Phase and Message are those of its last operation; OpRevision the
	// revision that operation synced or tried to.
	Phase      string `json:"phase,omitempty"`
	Message    string `json:"message,omitempty"`
	OpRevision string `json:"-"`
	// Retries is how many times Argo CD retried its last operation after
	// it failed (status.operationState.retryCount): a Running operation
	// with retries is a failed sync that Argo CD tries again.
	Retries int64 `json:"retries,omitempty"`
	// Deployed is the revision of its last successful sync (the last
	// entry of status.history).
	Deployed string `json:"deployed,omitempty"`
	// FinishedAt is when its last operation ended
	// (status.operationState.finishedAt); HealthSince when its health
	// last changed (status.health.lastTransitionTime). Zero when Argo CD
	// does not say.
	FinishedAt  time.Time `json:"finishedAt,omitzero"`
	HealthSince time.Time `json:"healthSince,omitzero"`
	// Fresh is false when Argo CD's last comparison (status.sync.comparedTo)
	// was not of the Application's current source and destination: its
	// sync status and health are then those of an earlier spec.
	Fresh bool `json:"-"`
	// Conditions are status.conditions, "Type: message".
	Conditions []string `json:"conditions,omitempty"`
	// Resources are the resources Argo CD reports not synced or not
	// healthy (status.resources).
	Resources []Resource `json:"resources,omitempty"`
	// Spec is the Application's spec and Meta its metadata that strata
	// renders, for diff --live.
	Spec map[string]any `json:"-"`
	Meta Meta           `json:"-"`
}

// Meta is the metadata of an object that strata renders (the rest is
// Argo CD's or the API server's).
type Meta struct {
	Labels      map[string]string
	Annotations map[string]string
	Finalizers  []string
}

func parseMeta(u map[string]any) Meta {
	var m Meta
	m.Labels, _, _ = unstructured.NestedStringMap(u, "metadata", "labels")
	m.Annotations, _, _ = unstructured.NestedStringMap(u, "metadata", "annotations")
	m.Finalizers, _, _ = unstructured.NestedStringSlice(u, "metadata", "finalizers")
	return m
}

// Resource is one resource of an Application as its status reports it.
type Resource struct {
	Group     string `json:"group,omitempty"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	Status    string `json:"status,omitempty"`
	Health    string `json:"health,omitempty"`
	Message   string `json:"message,omitempty"`
}

// AppSet is what strata reads of an ApplicationSet.
type AppSet struct {
	Name string `json:"name"`
	// Conditions are its status.conditions that are true, "Type: message".
	Conditions []string `json:"conditions,omitempty"`
	// Error is the message of its ErrorOccurred condition, when true.
	Error string         `json:"error,omitempty"`
	Spec  map[string]any `json:"-"`
	Meta  Meta           `json:"-"`
}

// Read lists the Applications and ApplicationSets of every Argo CD of the
// fleet (see [ArgoCDs]), one paginated list per resource and Argo CD, the
// Argo CDs in parallel. An Argo CD that cannot be reached has its Error
// set; the others are read all the same.
func Read(ctx context.Context, f *fleet.Fleet, connect Connect, opts Options) []*Instance {
	clusters := ArgoCDs(f)
	out := make([]*Instance, len(clusters))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i, c := range clusters {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			out[i] = readInstance(ctx, c, connect, opts)
		})
	}
	wg.Wait()
	return out
}

func readInstance(ctx context.Context, c *fleet.Cluster, connect Connect, opts Options) *Instance {
	in := &Instance{Cluster: c.Name, Namespace: opts.namespace()}
	dyn, err := connect(c)
	if err != nil {
		in.Error = err.Error()
		return in
	}
	rv, err := list(ctx, dyn, ApplicationGVR, in.Namespace, opts.PageSize, func(u map[string]any) {
		in.Applications = append(in.Applications, parseApp(u))
	})
	if err != nil {
		in.Error = fmt.Sprintf("listing Applications in %s: %v", in.Namespace, err)
		return in
	}
	in.ResourceVersion = rv
	_, err = list(ctx, dyn, ApplicationSetGVR, in.Namespace, opts.PageSize, func(u map[string]any) {
		in.ApplicationSets = append(in.ApplicationSets, parseAppSet(u))
	})
	if err != nil {
		in.Error = fmt.Sprintf("listing ApplicationSets in %s: %v", in.Namespace, err)
	}
	return in
}

// list lists a resource page by page and hands each object to fn; it
// returns the list's resource version.
func list(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, ns string, page int64, fn func(map[string]any)) (string, error) {
	if page <= 0 {
		page = 500
	}
	opts := metav1.ListOptions{Limit: page}
	for {
		l, err := dyn.Resource(gvr).Namespace(ns).List(ctx, opts)
		if err != nil {
			return "", err
		}
		for i := range l.Items {
			fn(l.Items[i].Object)
		}
		if l.GetContinue() == "" {
			return l.GetResourceVersion(), nil
		}
		opts.Continue = l.GetContinue()
	}
}

func str(u map[string]any, fields ...string) string {
	s, _, _ := unstructured.NestedString(u, fields...)
	return s
}

func parseApp(u map[string]any) App {
	a := App{
		Name:          str(u, "metadata", "name"),
		Sync:          str(u, "status", "sync", "status"),
		Health:        str(u, "status", "health", "status"),
		HealthMessage: str(u, "status", "health", "message"),
		Revision:      str(u, "status", "sync", "revision"),
		Phase:         str(u, "status", "operationState", "phase"),
		Message:       str(u, "status", "operationState", "message"),
		OpRevision:    str(u, "status", "operationState", "syncResult", "revision"),
	}
	a.Meta = parseMeta(u)
	a.Owner = owner(u)
	a.Spec, _, _ = unstructured.NestedMap(u, "spec")
	src, _, _ := unstructured.NestedMap(u, "spec", "source")
	if src == nil {
		if srcs, _, _ := unstructured.NestedSlice(u, "spec", "sources"); len(srcs) > 0 {
			src, _ = srcs[0].(map[string]any)
		}
	}
	if src != nil {
		a.RepoURL, a.Path, a.TargetRevision = str(src, "repoURL"), str(src, "path"), str(src, "targetRevision")
		a.ClusterValue = str(src, "helm", "valuesObject", "cluster", "name")
	}
	if a.Revision == "" {
		if revs, _, _ := unstructured.NestedStringSlice(u, "status", "sync", "revisions"); len(revs) > 0 {
			a.Revision = revs[0]
		}
	}
	if a.OpRevision == "" {
		a.OpRevision = str(u, "status", "operationState", "operation", "sync", "revision")
	}
	if hist, _, _ := unstructured.NestedSlice(u, "status", "history"); len(hist) > 0 {
		if m, ok := hist[len(hist)-1].(map[string]any); ok {
			a.Deployed = str(m, "revision")
			if a.Deployed == "" {
				if revs, _, _ := unstructured.NestedStringSlice(m, "revisions"); len(revs) > 0 {
					a.Deployed = revs[0]
				}
			}
		}
	}
	a.Retries, _, _ = unstructured.NestedInt64(u, "status", "operationState", "retryCount")
	a.FinishedAt = timeAt(u, "status", "operationState", "finishedAt")
	a.HealthSince = timeAt(u, "status", "health", "lastTransitionTime")
	a.Fresh = fresh(u)
	conds, _, _ := unstructured.NestedSlice(u, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok {
			a.Conditions = append(a.Conditions, fmt.Sprintf("%v: %v", m["type"], m["message"]))
		}
	}
	res, _, _ := unstructured.NestedSlice(u, "status", "resources")
	for _, r := range res {
		m, ok := r.(map[string]any)
		if !ok {
			continue
		}
		rs := Resource{Group: str(m, "group"), Kind: str(m, "kind"), Namespace: str(m, "namespace"), Name: str(m, "name"),
			Status: str(m, "status"), Health: str(m, "health", "status"), Message: str(m, "health", "message")}
		if (rs.Status != "" && rs.Status != "Synced") || (rs.Health != "" && rs.Health != "Healthy") {
			a.Resources = append(a.Resources, rs)
		}
	}
	return a
}

// timeAt is the RFC 3339 time at fields, zero when absent or malformed.
func timeAt(u map[string]any, fields ...string) time.Time {
	t, err := time.Parse(time.RFC3339, str(u, fields...))
	if err != nil {
		return time.Time{}
	}
	return t
}

// owner is the ApplicationSet among an object's owners.
func owner(u map[string]any) string {
	refs, _, _ := unstructured.NestedSlice(u, "metadata", "ownerReferences")
	for _, r := range refs {
		if m, ok := r.(map[string]any); ok && m["kind"] == "ApplicationSet" {
			name, _ := m["name"].(string)
			return name
		}
	}
	return ""
}

func parseAppSet(u map[string]any) AppSet {
	s := AppSet{Name: str(u, "metadata", "name")}
	s.Spec, _, _ = unstructured.NestedMap(u, "spec")
	s.Meta = parseMeta(u)
	conds, _, _ := unstructured.NestedSlice(u, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if !ok || m["status"] != "True" {
			continue
		}
		s.Conditions = append(s.Conditions, fmt.Sprintf("%v: %v", m["type"], m["message"]))
		if m["type"] == "ErrorOccurred" {
			s.Error, _ = m["message"].(string)
		}
	}
	return s
}

// fresh reports whether Argo CD's last comparison was of the Application's
// current source(s) and destination.
func fresh(u map[string]any) bool {
	cmp, ok, _ := unstructured.NestedMap(u, "status", "sync", "comparedTo")
	if !ok {
		return false
	}
	spec, _, _ := unstructured.NestedMap(u, "spec")
	for _, k := range []string{"source", "sources", "destination"} {
		if !equalJSON(spec[k], cmp[k]) {
			return false
		}
	}
	return true
}

// equalJSON compares two decoded JSON values; absent and empty are equal.
func equalJSON(a, b any) bool {
	if empty(a) && empty(b) {
		return true
	}
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range av {
			if !equalJSON(v, bv[k]) {
				return false
			}
		}
		for k, v := range bv {
			if _, ok := av[k]; !ok && !empty(v) {
				return false
			}
		}
		return true
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			return false
		}
		for i := range av {
			if !equalJSON(av[i], bv[i]) {
				return false
			}
		}
		return true
	}
	return fmt.Sprint(a) == fmt.Sprint(b)
}

func empty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	case bool:
		return !x
	}
	return false
}
