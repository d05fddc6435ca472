package live

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/strata-fleet/strata/internal/kube"
)

// Client is the client of one Argo CD's API server that [Kubeconfig.Connect]
// returns: a dynamic client (for Watch and whoever wants objects), and the
// REST client under it, through which Read lists Applications as JSON
// decoded straight into what strata reads of them (decodeApps), not into
// maps of every field: on a hub of 20,000 Applications that decoding is most
// of a status --live (BENCHMARKS.md).
type Client struct {
	dynamic.Interface
	rest rest.Interface
}

// ClientFor returns the Client of the API server cfg reaches, with
// kube.Secure's safeguards: no redirect off the server, the server's own
// words in its errors.
func ClientFor(cfg *rest.Config) (*Client, error) {
	cfg = kube.Secure(cfg)
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	c := rest.CopyConfig(cfg)
	c.GroupVersion = &schema.GroupVersion{Group: ApplicationGVR.Group, Version: ApplicationGVR.Version}
	c.APIPath = "/apis"
	// The scheme knows metav1.Status alone: an error response decodes
	// into the server's message, not "unknown".
	scheme := runtime.NewScheme()
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	c.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	c.AcceptContentTypes, c.ContentType = "application/json", "application/json"
	rc, err := rest.RESTClientFor(c)
	if err != nil {
		return nil, err
	}
	return &Client{Interface: dyn, rest: rc}, nil
}

// listRaw lists a resource as JSON, page by page, and hands each item to
// fn, one at a time (fn must not keep the value); it returns the list's
// resource version. Each page is decoded as it streams in, so memory holds
// one object, not the list.
//
// The list is a consistent read: it shows every change made before it,
// which status --live and a rollout's checks rely on. An API server whose
// etcd supports it (3.5.13 or later) serves it from its watch cache; with an
// older etcd each page is read from etcd (BENCHMARKS.md). A list from the
// watch cache at any version (resourceVersion=0) would be cheaper there,
// but may miss the last changes.
func (c *Client) listRaw(ctx context.Context, gvr schema.GroupVersionResource, ns string, o Options, fn func(jsontext.Value) error) (string, error) {
	limit := strconv.FormatInt(o.pageSize(), 10)
	params := url.Values{"limit": {limit}}
	for {
		call, cancel := o.call(ctx)
		meta, err := c.listPage(call, gvr, ns, params, fn)
		if err != nil {
			err = ctxErr(call, err)
		}
		cancel()
		if err != nil {
			return "", err
		}
		if meta.Continue == "" {
			return meta.ResourceVersion, nil
		}
		if meta.Continue == params.Get("continue") {
			return "", fmt.Errorf("the API server answered continue token %.40q with itself: the list of %s never ends", meta.Continue, gvr.Resource)
		}
		params = url.Values{"limit": {limit}, "continue": {meta.Continue}}
	}
}

// listPage gets one page of a list and decodes it as it streams in: the
// list's metadata, and each item handed to fn.
func (c *Client) listPage(ctx context.Context, gvr schema.GroupVersionResource, ns string, params url.Values, fn func(jsontext.Value) error) (listMeta, error) {
	req := c.rest.Get().Namespace(ns).Resource(gvr.Resource)
	for k, vs := range params {
		for _, v := range vs {
			req = req.Param(k, v)
		}
	}
	body, err := req.Stream(ctx)
	if err != nil {
		return listMeta{}, err
	}
	defer body.Close()
	var meta listMeta
	if err := decodeListStream(jsontext.NewDecoder(body), &meta, fn); err != nil {
		return listMeta{}, fmt.Errorf("decoding the list of %s: %w", gvr.Resource, err)
	}
	return meta, nil
}

// decodeListStream reads a list object from dec: its metadata into meta,
// each of its items handed to fn.
func decodeListStream(dec *jsontext.Decoder, meta *listMeta, fn func(jsontext.Value) error) error {
	if tok, err := dec.ReadToken(); err != nil {
		return err
	} else if tok.Kind() != '{' {
		return fmt.Errorf("a list is an object, not %v", tok.Kind())
	}
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return err
		}
		switch {
		case name.String() == "metadata":
			err = jsonv2.UnmarshalDecode(dec, meta)
		case name.String() == "items" && dec.PeekKind() == '[':
			err = decodeItems(dec, fn)
		default:
			err = dec.SkipValue()
		}
		if err != nil {
			return err
		}
	}
	_, err := dec.ReadToken()
	return err
}

func decodeItems(dec *jsontext.Decoder, fn func(jsontext.Value) error) error {
	if _, err := dec.ReadToken(); err != nil { // [
		return err
	}
	for dec.PeekKind() != ']' {
		v, err := dec.ReadValue()
		if err != nil {
			return err
		}
		if err := fn(v); err != nil {
			return err
		}
	}
	_, err := dec.ReadToken()
	return err
}

type listMeta struct {
	Continue        string `json:"continue"`
	ResourceVersion string `json:"resourceVersion"`
}

// objectMeta is what strata reads of an object's metadata.
type objectMeta struct {
	Name            string            `json:"name"`
	Labels          map[string]string `json:"labels"`
	Annotations     map[string]string `json:"annotations"`
	Finalizers      []string          `json:"finalizers"`
	OwnerReferences []struct {
		Kind string `json:"kind"`
		Name string `json:"name"`
	} `json:"ownerReferences"`
}

// appJSON is what strata reads of an Application; the sources and the
// destination stay JSON, compared as bytes with what Argo CD compared
// (status.sync.comparedTo) before anything is decoded.
type appJSON struct {
	Metadata objectMeta `json:"metadata"`
	Spec     struct {
		Source      jsontext.Value `json:"source"`
		Sources     jsontext.Value `json:"sources"`
		Destination jsontext.Value `json:"destination"`
	} `json:"spec"`
	Status struct {
		Sync struct {
			Status     string         `json:"status"`
			Revision   string         `json:"revision"`
			Revisions  []string       `json:"revisions"`
			ComparedTo jsontext.Value `json:"comparedTo"`
		} `json:"sync"`
		Health struct {
			Status             string `json:"status"`
			Message            string `json:"message"`
			LastTransitionTime string `json:"lastTransitionTime"`
		} `json:"health"`
		OperationState struct {
			Phase      string `json:"phase"`
			Message    string `json:"message"`
			RetryCount int64  `json:"retryCount"`
			FinishedAt string `json:"finishedAt"`
			SyncResult struct {
				Revision  string `json:"revision"`
				Resources []struct {
					Kind      string `json:"kind"`
					Namespace string `json:"namespace"`
					Name      string `json:"name"`
					Status    string `json:"status"`
					Message   string `json:"message"`
					HookType  string `json:"hookType"`
					HookPhase string `json:"hookPhase"`
				} `json:"resources"`
			} `json:"syncResult"`
			Operation struct {
				Sync struct {
					Revision string `json:"revision"`
				} `json:"sync"`
			} `json:"operation"`
		} `json:"operationState"`
		History []struct {
			Revision  string   `json:"revision"`
			Revisions []string `json:"revisions"`
		} `json:"history"`
		Conditions []struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"conditions"`
		Resources []struct {
			Group     string `json:"group"`
			Kind      string `json:"kind"`
			Namespace string `json:"namespace"`
			Name      string `json:"name"`
			Status    string `json:"status"`
			Health    struct {
				Status  string `json:"status"`
				Message string `json:"message"`
			} `json:"health"`
		} `json:"resources"`
	} `json:"status"`
}

// source is what strata reads of an Application's source.
type source struct {
	RepoURL        string `json:"repoURL"`
	Path           string `json:"path"`
	TargetRevision string `json:"targetRevision"`
	Helm           struct {
		ValuesObject struct {
			Cluster struct {
				Name string `json:"name"`
			} `json:"cluster"`
		} `json:"valuesObject"`
	} `json:"helm"`
}

// appSetJSON is what strata reads of an ApplicationSet.
type appSetJSON struct {
	Metadata objectMeta `json:"metadata"`
	Status   struct {
		Conditions []struct {
			Type    string `json:"type"`
			Status  string `json:"status"`
			Message string `json:"message"`
		} `json:"conditions"`
	} `json:"status"`
}

// specJSON is an object's whole spec, for diff --live (Options.Specs).
type specJSON struct {
	Spec map[string]any `json:"spec"`
}

// decodeApp decodes one Application of a list; with specs, it keeps its
// whole spec.
func decodeApp(item jsontext.Value, specs bool) (App, error) {
	var j appJSON
	spec, err := decodeItem(item, specs, &j)
	if err != nil {
		return App{}, err
	}
	a := j.app()
	a.Spec = spec
	return a, nil
}

// decodeAppSet is decodeApp for an ApplicationSet.
func decodeAppSet(item jsontext.Value, specs bool) (AppSet, error) {
	var j appSetJSON
	spec, err := decodeItem(item, specs, &j)
	if err != nil {
		return AppSet{}, err
	}
	s := j.appSet()
	s.Spec = spec
	return s, nil
}

// decodeItem decodes an object's JSON into j, and with specs (a second
// pass) returns its whole spec.
func decodeItem(item jsontext.Value, specs bool, j any) (map[string]any, error) {
	if err := jsonv2.Unmarshal(item, j); err != nil {
		return nil, err
	}
	if !specs {
		return nil, nil
	}
	var s specJSON
	if err := utiljson.Unmarshal(item, &s); err != nil { // integers as int64, as the dynamic client's
		return nil, err
	}
	return s.Spec, nil
}

func (m *objectMeta) meta() Meta {
	return Meta{Labels: m.Labels, Annotations: m.Annotations, Finalizers: m.Finalizers}
}

// owner is the ApplicationSet among the object's owners.
func (m *objectMeta) owner() string {
	for _, r := range m.OwnerReferences {
		if r.Kind == "ApplicationSet" {
			return r.Name
		}
	}
	return ""
}

// app is what strata reads of the Application.
func (j *appJSON) app() App {
	st := &j.Status
	a := App{
		Name: j.Metadata.Name, Owner: j.Metadata.owner(), Meta: j.Metadata.meta(),
		Sync: st.Sync.Status, Health: st.Health.Status, HealthMessage: st.Health.Message, Revision: st.Sync.Revision,
		Phase: st.OperationState.Phase, Message: st.OperationState.Message, OpRevision: st.OperationState.SyncResult.Revision,
	}
	if src := j.firstSource(); src != nil {
		a.RepoURL, a.Path, a.TargetRevision = src.RepoURL, src.Path, src.TargetRevision
		a.ClusterValue = src.Helm.ValuesObject.Cluster.Name
	}
	if a.Revision == "" && len(st.Sync.Revisions) > 0 {
		a.Revision = st.Sync.Revisions[0]
	}
	if a.OpRevision == "" {
		a.OpRevision = st.OperationState.Operation.Sync.Revision
	}
	if n := len(st.History); n > 0 {
		a.Deployed = st.History[n-1].Revision
		if a.Deployed == "" && len(st.History[n-1].Revisions) > 0 {
			a.Deployed = st.History[n-1].Revisions[0]
		}
	}
	for _, r := range st.OperationState.SyncResult.Resources {
		if failedPhase(r.HookPhase) || r.Status == "SyncFailed" {
			a.OpFailures = append(a.OpFailures, OpFailure{Kind: r.Kind, Namespace: r.Namespace, Name: r.Name,
				HookType: r.HookType, HookPhase: r.HookPhase, Status: r.Status, Message: r.Message})
		}
	}
	a.Retries = st.OperationState.RetryCount
	a.FinishedAt = timeAt(st.OperationState.FinishedAt)
	a.HealthSince = timeAt(st.Health.LastTransitionTime)
	a.Fresh = j.fresh()
	for _, c := range st.Conditions {
		a.Conditions = append(a.Conditions, c.Type+": "+c.Message)
	}
	for _, r := range st.Resources {
		rs := Resource{Group: r.Group, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name, Status: r.Status, Health: r.Health.Status, Message: r.Health.Message}
		if (rs.Status != "" && rs.Status != "Synced") || (rs.Health != "" && rs.Health != "Healthy") {
			a.Resources = append(a.Resources, rs)
		}
	}
	return a
}

// firstSource is the Application's source, or the first of its sources.
func (j *appJSON) firstSource() *source {
	raw := j.Spec.Source
	if isNull(raw) {
		var srcs []jsontext.Value
		if jsonv2.Unmarshal(j.Spec.Sources, &srcs) != nil || len(srcs) == 0 {
			return nil
		}
		raw = srcs[0]
	}
	var s source
	if jsonv2.Unmarshal(raw, &s) != nil {
		return nil
	}
	return &s
}

// fresh reports whether Argo CD's last comparison was of the Application's
// current source(s) and destination: the same JSON, or, when the bytes
// differ, the same values (absent and empty alike).
func (j *appJSON) fresh() bool {
	if isNull(j.Status.Sync.ComparedTo) {
		return false
	}
	var cmp struct {
		Source      jsontext.Value `json:"source"`
		Sources     jsontext.Value `json:"sources"`
		Destination jsontext.Value `json:"destination"`
	}
	if jsonv2.Unmarshal(j.Status.Sync.ComparedTo, &cmp) != nil {
		return false
	}
	return sameJSON(j.Spec.Source, cmp.Source) && sameJSON(j.Spec.Sources, cmp.Sources) && sameJSON(j.Spec.Destination, cmp.Destination)
}

func sameJSON(a, b jsontext.Value) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var av, bv any
	if !isNull(a) && json.Unmarshal(a, &av) != nil || !isNull(b) && json.Unmarshal(b, &bv) != nil {
		return false
	}
	return equalJSON(av, bv)
}

func isNull(raw jsontext.Value) bool { return len(raw) == 0 || string(raw) == "null" }

// appSet is what strata reads of the ApplicationSet.
func (j *appSetJSON) appSet() AppSet {
	s := AppSet{Name: j.Metadata.Name, Meta: j.Metadata.meta()}
	for _, c := range j.Status.Conditions {
		if c.Status != "True" {
			continue
		}
		s.Conditions = append(s.Conditions, c.Type+": "+c.Message)
		if c.Type == "ErrorOccurred" {
			s.Error = c.Message
		}
	}
	return s
}

// timeAt is an RFC 3339 time, zero when absent or malformed.
func timeAt(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}
	}
	return t
}
