package validate

//go:generate go run ./gen

import (
	"fmt"
	"sort"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/strata-fleet/strata/internal/validate/schemas"
)

// Schemas are the validators of the Argo CD resources, built from the CRD
// schemas embedded in strata as the API server builds them from a CRD.
type Schemas struct {
	// Source names the Argo CD release the schemas come from.
	Source schemas.Source
	byGVK  map[schema.GroupVersionKind]*resource
	byKind map[string][]*resource
	groups map[string]bool
}

// resource is one served version of a CRD, ready to validate objects once
// built (on first use: the ApplicationSet schema alone takes a while).
type resource struct {
	gvk        schema.GroupVersionKind
	namespaced bool
	// status is true when the status subresource is on: the server then
	// ignores status on create.
	status bool

	build      func() error
	once       sync.Once
	err        error
	structural *structuralschema.Structural
	validator  apiservervalidation.SchemaValidator
}

// ready builds the resource's schema and validator on first use.
func (r *resource) ready() error {
	r.once.Do(func() { r.err = r.build() })
	return r.err
}

var loadOnce = sync.OnceValues(func() (*Schemas, error) {
	f, err := schemas.Load()
	if err != nil {
		return nil, err
	}
	return NewSchemas(f)
})

// ArgoCD returns the schemas of the Argo CD release embedded in strata,
// built on first use.
func ArgoCD() (*Schemas, error) { return loadOnce() }

// NewSchemas returns the validators of decoded CRD schemas; each is built
// on first use.
func NewSchemas(f *schemas.File) (*Schemas, error) {
	if len(f.CRDs) == 0 {
		return nil, fmt.Errorf("no CRD schemas in %s %s", f.Source.Module, f.Source.Version)
	}
	s := &Schemas{Source: f.Source, byGVK: map[schema.GroupVersionKind]*resource{},
		byKind: map[string][]*resource{}, groups: map[string]bool{}}
	for _, crd := range f.CRDs {
		for _, v := range crd.Versions {
			if !v.Served {
				continue
			}
			r := newResource(crd, v)
			s.byGVK[r.gvk] = r
			s.byKind[crd.Kind] = append(s.byKind[crd.Kind], r)
			s.groups[crd.Group] = true
		}
	}
	return s, nil
}

// newResource returns the resource of a CRD version. Its build converts the
// version's schema to the API server's internal types and builds, as the
// server's CRD handler does, the structural schema (with defaults pruned)
// and the OpenAPI validator.
func newResource(crd schemas.CRD, v schemas.Version) *resource {
	r := &resource{
		gvk:        schema.GroupVersionKind{Group: crd.Group, Version: v.Name, Kind: crd.Kind},
		namespaced: crd.Namespaced,
		status:     v.StatusSubresource,
	}
	r.build = func() error {
		internal := &apiextensions.JSONSchemaProps{}
		if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema, internal, nil); err != nil {
			return err
		}
		st, err := structuralschema.NewStructural(internal)
		if err != nil {
			return err
		}
		st = st.DeepCopy()
		if err := structuraldefaulting.PruneDefaults(st); err != nil {
			return err
		}
		validator, _, err := apiservervalidation.NewSchemaValidator(internal)
		if err != nil {
			return err
		}
		r.structural, r.validator = st, validator
		return nil
	}
	return r
}

// Kinds lists the kinds the schemas validate.
func (s *Schemas) Kinds() []string {
	var out []string
	for k := range s.byKind {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// servedVersions lists the apiVersions served for kind.
func (s *Schemas) servedVersions(kind string) []string {
	var out []string
	for _, r := range s.byKind[kind] {
		out = append(out, r.gvk.GroupVersion().String())
	}
	sort.Strings(out)
	return out
}
