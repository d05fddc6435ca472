package bootstrap_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"

	"github.com/strata-fleet/strata/internal/bootstrap"
)

// An API server that redirects elsewhere gets no object, and the server
// redirected to gets no request (the token and the Secret would go there):
// the apply fails and says why.
func TestApplyFollowsNoRedirectElsewhere(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		http.NotFound(w, r)
	}))
	defer other.Close()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.RequestURI(), http.StatusTemporaryRedirect)
	}))
	defer api.Close()
	ap, err := bootstrap.NewApplier(&rest.Config{Host: api.URL, BearerToken: "the-token"})
	if err != nil {
		t.Fatal(err)
	}
	secret := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": "spoke-1", "namespace": "argocd"}, "stringData": map[string]any{"config": "{}"}}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = ap.Apply(ctx, []*unstructured.Unstructured{secret})
	if err == nil || !strings.Contains(err.Error(), "strata follows no redirect") {
		t.Errorf("Apply = %v, want the redirect refused", err)
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the server redirected to got %d requests", n)
	}
}
