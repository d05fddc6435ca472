package validate

import (
	"errors"
	"regexp"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/strata-fleet/strata/internal/testing/testenv"
)

// TestAPIServerAgrees sends every corpus object to a real kube-apiserver
// (testenv, at testenv.KubeVersion) serving the Argo CD CRDs of the Argo CD
// release whose schemas strata embeds, as a create with strict field
// validation, and checks that the server rejects exactly the objects strata
// rejects: an object TestCorpus expects problems for is refused (and every
// field the server names is one strata names), every other one is stored.
func TestAPIServerAgrees(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping under -short: starts etcd and kube-apiserver (built by " + testenv.BuildScript + ")")
	}
	schemas, err := ArgoCD()
	if err != nil {
		t.Fatal(err)
	}
	srv := testenv.StartAPIServer(t)
	cfg := srv.Config()
	cfg.WarningHandler = rest.NoWarnings{} // Argo CD's own finalizer name draws one
	testenv.InstallArgoCDCRDs(t, cfg)
	ctx := t.Context()
	cs := kubernetes.NewForConfigOrDie(cfg)
	dyn := dynamic.NewForConfigOrDie(cfg)
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(discovery.NewDiscoveryClientForConfigOrDie(cfg)))
	namespaces := map[string]bool{"default": true}

	for _, c := range loadCorpus(t) {
		t.Run(c.name, func(t *testing.T) {
			obj, err := Decode(c.data)
			if err != nil {
				t.Fatal(err)
			}
			problems, _ := schemas.Check(mustDecode(t, c.data))
			u := &unstructured.Unstructured{Object: obj}
			ns := u.GetNamespace()
			if ns == "" {
				ns = "argocd"
			}
			if !namespaces[ns] {
				_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
				if err != nil && !apierrors.IsAlreadyExists(err) {
					t.Fatal(err)
				}
				namespaces[ns] = true
			}

			gvk := u.GroupVersionKind()
			mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
			if err == nil {
				_, err = dyn.Resource(mapping.Resource).Namespace(ns).Create(ctx, u,
					metav1.CreateOptions{FieldValidation: metav1.FieldValidationStrict})
			}
			switch {
			case err == nil && len(problems) > 0:
				t.Errorf("the API server accepted it; strata reports %v", problems)
			case err != nil && len(problems) == 0:
				t.Errorf("the API server rejected it (%v); strata reports nothing", err)
			case err != nil:
				t.Logf("rejected: %v", err)
				var paths []string
				for _, p := range problems {
					paths = append(paths, p.Path)
				}
				for _, f := range serverFields(err) {
					if !slices.Contains(paths, f) {
						t.Errorf("the API server names %s (%v); strata names %v", f, err, paths)
					}
				}
			}
		})
	}
}

func mustDecode(t *testing.T, data []byte) map[string]any {
	t.Helper()
	obj, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	return obj
}

var unknownFieldRE = regexp.MustCompile(`unknown field "([^"]+)"`)

// serverFields lists the fields an API error names: the causes of an
// Invalid error, the unknown fields of a strict decoding error.
func serverFields(err error) []string {
	var out []string
	var status apierrors.APIStatus
	if errors.As(err, &status) && status.Status().Details != nil {
		for _, c := range status.Status().Details.Causes {
			if c.Field != "" {
				out = append(out, c.Field)
			}
		}
	}
	for _, m := range unknownFieldRE.FindAllStringSubmatch(err.Error(), -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}
