package live

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	// Specs keeps each object's whole spec (App.Spec, AppSet.Spec), which
	// diff --live compares; status does without.
	Specs bool
	// CallTimeout, when set, bounds each page of a list on its own (the
	// server answering it), while the caller's context bounds the whole
	// read: a list of 100,000 objects is read to its end as long as the
	// server answers each page in time (a rollout's first read of its hub).
	CallTimeout time.Duration
}

// call is ctx for one page of a list: bounded by CallTimeout when set.
func (o Options) call(ctx context.Context) (context.Context, context.CancelFunc) {
	if o.CallTimeout <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, o.CallTimeout)
}

func (o Options) pageSize() int64 {
	if o.PageSize <= 0 {
		return 500
	}
	return o.PageSize
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
	// Reason is the same without what is the cluster's own (its name,
	// its server's address): the same for every Argo CD that fails alike
	// (see [Reason]).
	Error           string   `json:"error,omitempty"`
	Reason          string   `json:"reason,omitempty"`
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
	// OpFailures are the resources its last operation failed on
	// (status.operationState.syncResult.resources): hooks whose phase is
	// Failed or Error, resources whose result is SyncFailed.
	OpFailures []OpFailure `json:"opFailures,omitempty"`
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

// OpFailure is a resource of an operation's result that failed: a hook
// (HookType PreSync, Sync, PostSync, SyncFail...) whose phase is Failed or
// Error, or a resource whose result Status is SyncFailed.
type OpFailure struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	HookType  string `json:"hookType,omitempty"`
	HookPhase string `json:"hookPhase,omitempty"`
	Status    string `json:"status,omitempty"`
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

// ReadOne reads the Argo CD of cluster c alone, as Read reads each.
func ReadOne(ctx context.Context, c *fleet.Cluster, connect Connect, opts Options) *Instance {
	return readInstance(ctx, c, connect, opts)
}

func readInstance(ctx context.Context, c *fleet.Cluster, connect Connect, opts Options) *Instance {
	in := &Instance{Cluster: c.Name, Namespace: opts.namespace()}
	dyn, err := connect(c)
	if err != nil {
		in.fail("", err)
		return in
	}
	apps, rv, err := readKind(ctx, dyn, ApplicationGVR, in.Namespace, opts, decodeApp, parseApp)
	if err != nil {
		in.fail("listing Applications in "+in.Namespace, ctxErr(ctx, err))
		return in
	}
	in.Applications, in.ResourceVersion = apps, rv
	in.ApplicationSets, _, err = readKind(ctx, dyn, ApplicationSetGVR, in.Namespace, opts, decodeAppSet, parseAppSet)
	if err != nil {
		in.fail("listing ApplicationSets in "+in.Namespace, ctxErr(ctx, err))
	}
	return in
}

// readKind lists one kind of object in namespace ns: through a [Client],
// from the list's JSON (decode), else from the dynamic client's maps
// (parse), to the same result. It returns the objects and the list's
// resource version.
func readKind[T any](ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, ns string, opts Options,
	decode func(jsontext.Value, bool) (T, error), parse func(map[string]any, bool) T) ([]T, string, error) {
	var out []T
	if c, ok := dyn.(*Client); ok {
		rv, err := c.listRaw(ctx, gvr, ns, opts, func(item jsontext.Value) error {
			o, err := decode(item, opts.Specs)
			if err == nil {
				out = append(out, o)
			}
			return err
		})
		return out, rv, err
	}
	rv, err := list(ctx, dyn, gvr, ns, opts, func(u map[string]any) { out = append(out, parse(u, opts.Specs)) })
	return out, rv, err
}

// list lists a resource page by page (each within o.CallTimeout) and hands
// each object to fn; it returns the list's resource version.
func list(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, ns string, o Options, fn func(map[string]any)) (string, error) {
	opts := metav1.ListOptions{Limit: o.pageSize()}
	for {
		call, cancel := o.call(ctx)
		l, err := dyn.Resource(gvr).Namespace(ns).List(call, opts)
		if err != nil {
			err = ctxErr(call, err)
		}
		cancel()
		if err != nil {
			return "", err
		}
		for i := range l.Items {
			fn(l.Items[i].Object)
		}
		if l.GetContinue() == "" {
			return l.GetResourceVersion(), nil
		}
		if l.GetContinue() == opts.Continue {
			return "", fmt.Errorf("the API server answered continue token %.40q with itself: the list of %s never ends", opts.Continue, gvr.Resource)
		}
		opts.Continue = l.GetContinue()
	}
}

// parseApp is what strata reads of an Application decoded as a map (from a
// watch, or a client that is not a [Client]): the same as from a list's
// JSON, through the same decoding; with specs, its whole spec too.
func parseApp(u map[string]any, specs bool) App {
	var j appJSON
	if data, err := json.Marshal(u); err == nil {
		_ = json.Unmarshal(data, &j)
	}
	a := j.app()
	if specs {
		a.Spec, _ = u["spec"].(map[string]any)
	}
	return a
}

func parseAppSet(u map[string]any, specs bool) AppSet {
	var j appSetJSON
	if data, err := json.Marshal(u); err == nil {
		_ = json.Unmarshal(data, &j)
	}
	s := j.appSet()
	if specs {
		s.Spec, _ = u["spec"].(map[string]any)
	}
	return s
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
