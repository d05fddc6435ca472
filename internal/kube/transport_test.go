package kube

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

var appsGVR = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "applications"}

// TestRedirectsStayOnTheServer: a redirect to another port or host is
// refused before anything is sent there, credentials or not; one on the
// same server is followed.
func TestRedirectsStayOnTheServer(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"kind":"List","apiVersion":"v1","items":[]}`))
	}))
	defer other.Close()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("moved") != "" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"kind":"ApplicationList","apiVersion":"argoproj.io/v1alpha1","metadata":{},"items":[]}`))
			return
		}
		if strings.Contains(r.URL.Path, "/namespaces/same/") {
			http.Redirect(w, r, r.URL.Path+"?moved=1", http.StatusFound)
			return
		}
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer api.Close()
	cfg := Secure(&rest.Config{Host: api.URL, BearerToken: "the-token"})
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = dyn.Resource(appsGVR).Namespace("argocd").List(ctx, metav1.ListOptions{})
	if err == nil || !strings.Contains(err.Error(), "strata follows no redirect") || !strings.Contains(err.Error(), other.URL[len("http://"):]) {
		t.Errorf("a redirect to another port: %v", err)
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the other server got %d requests", n)
	}
	if _, err := dyn.Resource(appsGVR).Namespace("same").List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("a redirect on the same server: %v", err)
	}
}

// TestErrorsInTheServersWords: whatever the body of an error response, the
// error client-go makes of it says what the server said, and keeps its
// kind (IsForbidden...).
func TestErrorsInTheServersWords(t *testing.T) {
	for _, tc := range []struct {
		name        string
		code        int
		contentType string
		body        string
		want        string
		is          func(error) bool
	}{
		{name: "403 with a Kubernetes Status", code: 403, contentType: "application/json",
			body: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"applications.argoproj.io is forbidden: User \"reader\" cannot list resource \"applications\" in API group \"argoproj.io\" in the namespace \"argocd\"","reason":"Forbidden","details":{"group":"argoproj.io","kind":"applications"},"code":403}`,
			want: `applications.argoproj.io is forbidden: User "reader" cannot list resource "applications"`, is: apierrors.IsForbidden},
		{name: "500 with an empty body", code: 500, contentType: "application/json",
			want: "the server answered 500 Internal Server Error with an empty body", is: apierrors.IsInternalError},
		{name: "502 from a proxy's page", code: 502, contentType: "text/html",
			body: "<html><body><h1>502 Bad Gateway</h1><p>upstream kube-apiserver is down</p></body></html>",
			want: "the server answered 502 Bad Gateway: 502 Bad Gateway upstream kube-apiserver is down"},
		{name: "401 with JSON of its own", code: 401, contentType: "application/json",
			body: `{"error":"the OIDC token expired"}`, want: "the OIDC token expired", is: apierrors.IsUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tc.contentType)
				w.WriteHeader(tc.code)
				_, _ = w.Write([]byte(tc.body))
			}))
			defer api.Close()
			dyn, err := dynamic.NewForConfig(Secure(&rest.Config{Host: api.URL}))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_, err = dyn.Resource(appsGVR).Namespace("argocd").List(ctx, metav1.ListOptions{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want it to say %q", err, tc.want)
			}
			if tc.is != nil && !tc.is(err) {
				t.Errorf("%v: the error lost its kind", err)
			}
		})
	}
}
