package bootstrap

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/strata-fleet/strata/internal/kube"
)

// FieldManager is the server-side apply field manager of strata.
const FieldManager = "strata"

// Action is what applying did to an object.
type Action string

// The actions, as kubectl names them.
const (
	Created    Action = "created"
	Configured Action = "configured"
	Unchanged  Action = "unchanged"
	// Installed and Skipped are for the Helm release of Argo CD.
	Installed Action = "installed"
	Skipped   Action = "skipped"
)

// Result is what happened to one object.
type Result struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	Action    Action `json:"action"`
	// Detail adds what the action alone does not say.
	Detail string `json:"detail,omitempty"`
}

// String reports the result as kubectl does: "secret/mc-1 created".
func (r Result) String() string {
	s := strings.ToLower(r.Kind) + "/" + r.Name + " " + string(r.Action)
	if r.Detail != "" {
		s += " (" + r.Detail + ")"
	}
	return s
}

// Applier applies objects server-side to one cluster.
type Applier struct {
	client dynamic.Interface
	mapper meta.ResettableRESTMapper
	// WaitForKinds is how long to wait for a kind the server does not
	// serve yet (CRDs just installed); 0 fails at once.
	WaitForKinds time.Duration
}

// NewApplier returns an Applier for the cluster cfg reaches, with
// kube.Secure's safeguards (no redirect off the server).
func NewApplier(cfg *rest.Config) (*Applier, error) {
	cfg = kube.Secure(cfg)
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &Applier{client: client, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))}, nil
}

// Apply applies the objects in order, server-side, with strata's field
// manager taking over fields other managers set (bootstrap is an explicit
// act of the operator), and reports for each whether it was created,
// configured (changed) or unchanged. It stops at the first error.
func (a *Applier) Apply(ctx context.Context, objs []*unstructured.Unstructured) ([]Result, error) {
	var out []Result
	for _, o := range objs {
		r, err := a.apply(ctx, o)
		if err != nil {
			return out, fmt.Errorf("applying %s: %w", describe(o), err)
		}
		out = append(out, r)
	}
	return out, nil
}

func (a *Applier) apply(ctx context.Context, o *unstructured.Unstructured) (Result, error) {
	res := Result{Kind: o.GetKind(), Namespace: o.GetNamespace(), Name: o.GetName()}
	m, err := a.mapping(ctx, o)
	if err != nil {
		return res, err
	}
	var ri dynamic.ResourceInterface = a.client.Resource(m.Resource)
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		ri = a.client.Resource(m.Resource).Namespace(o.GetNamespace())
	}
	before, err := ri.Get(ctx, o.GetName(), metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		before = nil
	case err != nil:
		return res, err
	}
	after, err := ri.Apply(ctx, o.GetName(), o, metav1.ApplyOptions{FieldManager: FieldManager, Force: true})
	if err != nil {
		return res, err
	}
	switch {
	case before == nil:
		res.Action = Created
	case before.GetResourceVersion() == after.GetResourceVersion():
		res.Action = Unchanged
	default:
		res.Action = Configured
	}
	return res, nil
}

// mapping finds the resource of o's kind, waiting up to WaitForKinds for a
// kind whose CRD was just installed.
func (a *Applier) mapping(ctx context.Context, o *unstructured.Unstructured) (*meta.RESTMapping, error) {
	gvk := o.GroupVersionKind()
	m, err := a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err == nil || !meta.IsNoMatchError(err) {
		return m, err
	}
	if a.WaitForKinds > 0 {
		werr := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, a.WaitForKinds, true, func(context.Context) (bool, error) {
			a.mapper.Reset()
			m, err = a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
			return err == nil, nil
		})
		if werr == nil {
			return m, nil
		}
	}
	return nil, &MissingKindError{Kind: gvk.Kind, APIVersion: gvk.GroupVersion().String()}
}

// MissingKindError is an object whose kind the API server does not serve:
// its CRDs are not installed.
type MissingKindError struct {
	Kind, APIVersion string
}

func (e *MissingKindError) Error() string {
	switch e.APIVersion {
	case "argoproj.io/v1alpha1":
		return fmt.Sprintf("the API server has no kind %s (%s): install Argo CD first, or give --install-argocd CHART", e.Kind, e.APIVersion)
	case "external-secrets.io/v1":
		return fmt.Sprintf("the API server has no kind %s (%s): install External Secrets Operator on the hub first", e.Kind, e.APIVersion)
	}
	return fmt.Sprintf("the API server has no kind %s (%s): install its CRD first", e.Kind, e.APIVersion)
}

// IsMissingKind reports whether err is a *MissingKindError.
func IsMissingKind(err error) bool {
	var e *MissingKindError
	return errors.As(err, &e)
}
