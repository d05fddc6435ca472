package validate

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// Problem is something the API server would reject in an object: the field
// path (as the server spells it: spec.sources[0].repoURL; empty for the
// object as a whole) and what is wrong.
type Problem struct {
	Path    string
	Message string
}

// Decode reads one YAML document as the Kubernetes API machinery reads a
// manifest: YAML to JSON, then JSON to an unstructured object whose numbers
// are int64 or float64.
func Decode(data []byte) (map[string]any, error) {
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, err
	}
	var obj map[string]any
	if err := utiljson.Unmarshal(js, &obj); err != nil {
		return nil, err
	}
	return obj, nil
}

// Check checks one object as the API server checks a create request with
// strict field validation, and returns what it would reject. ok is false when
// the object is not an Argo CD resource (nothing was checked). obj is
// modified (pruned, defaulted), as the server modifies what it decodes.
//
// The steps are the server's: the object's apiVersion and kind must name a
// served version of a CRD; ObjectMeta is decoded strictly (unknown fields in
// metadata); fields the structural schema does not declare are unknown
// fields (the server prunes them, and rejects them under strict field
// validation); nulls of non-nullable fields are dropped and defaults
// applied; then ObjectMeta, the OpenAPI schema (types, required fields,
// enums, formats, patterns), embedded resources and list-type invariants are
// validated. The Argo CD CRDs have no CEL rules (the schema generator
// refuses any), so none are evaluated.
func (s *Schemas) Check(obj map[string]any) (problems []Problem, ok bool) {
	r, problems, ok := s.resolve(obj)
	if r == nil {
		return problems, ok
	}
	if err := r.ready(); err != nil {
		// The embedded schemas are checked by the tests: this cannot happen
		// in a released strata.
		return []Problem{{Message: fmt.Sprintf("building the %s schema: %v", r.gvk, err)}}, true
	}
	u := &unstructured.Unstructured{Object: obj}

	// Decoding (the server's unstructuredSchemaCoercer).
	meta, foundMeta, unknownMeta, err := schemaobjectmeta.GetObjectMetaWithOptions(obj, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		return append(problems, Problem{Path: "metadata", Message: "cannot be decoded: " + jsonMessage(err)}), true
	}
	var unknown []string
	unknown = append(unknown, unknownMeta...)
	unknown = append(unknown, structuralpruning.PruneWithOptions(obj, r.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, r.structural)
	if ferr, paths := schemaobjectmeta.CoerceWithOptions(nil, obj, r.structural, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true}); ferr != nil {
		problems = append(problems, fieldProblem(ferr))
	} else {
		unknown = append(unknown, paths...)
	}
	apiVersion, kind := u.GetAPIVersion(), u.GetKind()
	if foundMeta {
		if err := schemaobjectmeta.SetObjectMeta(obj, meta); err != nil {
			return append(problems, Problem{Path: "metadata", Message: err.Error()}), true
		}
	}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	sort.Strings(unknown)
	for _, p := range unknown {
		problems = append(problems, Problem{Path: p, Message: unknownMessage(r.structural, p)})
	}
	structuraldefaulting.Default(obj, r.structural)

	// Create (the strategy's PrepareForCreate and Validate). The request's
	// namespace fills in a missing one; the status subresource, when on,
	// makes the server ignore status.
	if r.status {
		delete(obj, "status")
	}
	if r.namespaced && u.GetNamespace() == "" {
		u.SetNamespace("default")
	}
	var errs field.ErrorList
	errs = append(errs, apivalidation.ValidateObjectMetaAccessor(u, r.namespaced, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))...)
	errs = append(errs, apiservervalidation.ValidateCustomResource(nil, obj, r.validator)...)
	errs = append(errs, schemaobjectmeta.Validate(nil, obj, r.structural, false)...)
	errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, r.structural, obj)...)
	for _, e := range errs {
		problems = append(problems, fieldProblem(e))
	}
	return problems, true
}

// resolve finds the served CRD version of obj's apiVersion and kind. It
// returns nil and ok=false for an object of another API group and kind.
func (s *Schemas) resolve(obj map[string]any) (*resource, []Problem, bool) {
	apiVersion, aok := obj["apiVersion"].(string)
	kind, kok := obj["kind"].(string)
	var problems []Problem
	if !aok || apiVersion == "" {
		problems = append(problems, Problem{Path: "apiVersion", Message: "Required value: every resource names its apiVersion (argoproj.io/v1alpha1)"})
	}
	if !kok || kind == "" {
		problems = append(problems, Problem{Path: "kind", Message: "Required value: every resource names its kind (Application or ApplicationSet)"})
	}
	if len(problems) > 0 {
		return nil, problems, true
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, []Problem{{Path: "apiVersion", Message: fmt.Sprintf("Invalid value: %q: %v", apiVersion, err)}}, true
	}
	if r := s.byGVK[gv.WithKind(kind)]; r != nil {
		return r, nil, true
	}
	if versions := s.byKind[kind]; len(versions) > 0 {
		return nil, []Problem{{Path: "apiVersion", Message: fmt.Sprintf("Invalid value: %q: the API server serves %s as %s",
			apiVersion, kind, strings.Join(s.servedVersions(kind), " or "))}}, true
	}
	if s.groups[gv.Group] {
		msg := fmt.Sprintf("Invalid value: %q: %s serves no such kind (it serves %s)", kind, gv.Group, strings.Join(s.Kinds(), ", "))
		if c := closest(kind, s.Kinds()); c != "" {
			msg += fmt.Sprintf("; did you mean %q?", c)
		}
		return nil, []Problem{{Path: "kind", Message: msg}}, true
	}
	return nil, nil, false
}

// fieldProblem turns a field error of the API server into a Problem, without
// the path that kube-openapi repeats in its messages.
func fieldProblem(e *field.Error) Problem {
	msg := e.ErrorBody()
	if e.Field != "" {
		msg = strings.ReplaceAll(msg, e.Field+" in body ", "")
	}
	if s, ok := e.BadValue.(string); ok {
		// kube-openapi's type errors end with the bad value, which the
		// field error has already quoted.
		msg = strings.TrimSuffix(msg, fmt.Sprintf(": %q", s))
	}
	return Problem{Path: e.Field, Message: msg}
}

// jsonMessage trims the Go type names out of a JSON decoding error.
func jsonMessage(err error) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "json: ")
	return msg
}

// unknownMessage says that the field at path is unknown and, when the
// schema around it is known, what would be right.
func unknownMessage(root *structuralschema.Structural, path string) string {
	segs := parsePath(path)
	if len(segs) == 0 {
		return "unknown field"
	}
	name := segs[len(segs)-1]
	var known []string
	if len(segs) == 2 && segs[0] == "metadata" {
		known = objectMetaFields()
	} else if parent := schemaAt(root, segs[:len(segs)-1]); parent != nil {
		for k := range parent.Properties {
			known = append(known, k)
		}
		if len(segs) == 1 {
			known = append(known, "apiVersion", "kind", "metadata")
		}
	}
	sort.Strings(known)
	switch {
	case len(known) == 0:
		return fmt.Sprintf("unknown field %q", name)
	case closest(name, known) != "":
		return fmt.Sprintf("unknown field %q: did you mean %q?", name, closest(name, known))
	case len(known) <= 15:
		return fmt.Sprintf("unknown field %q: the fields here are %s", name, strings.Join(known, ", "))
	}
	return fmt.Sprintf("unknown field %q", name)
}

// schemaAt returns the schema of the field at segs, or nil.
func schemaAt(s *structuralschema.Structural, segs []string) *structuralschema.Structural {
	for _, seg := range segs {
		if s == nil {
			return nil
		}
		if isIndex(seg) && s.Items != nil {
			s = s.Items
			continue
		}
		if p, ok := s.Properties[seg]; ok {
			s = &p
			continue
		}
		if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil {
			s = s.AdditionalProperties.Structural
			continue
		}
		return nil
	}
	return s
}

// objectMetaFields lists the JSON names of ObjectMeta's fields.
var objectMetaFields = func() func() []string {
	var names []string
	t := reflect.TypeOf(metav1.ObjectMeta{})
	for i := range t.NumField() {
		if tag := strings.Split(t.Field(i).Tag.Get("json"), ",")[0]; tag != "" && tag != "-" {
			names = append(names, tag)
		}
	}
	return func() []string { return names }
}()

// CheckYAML decodes one YAML document and checks the object.
func (s *Schemas) CheckYAML(data []byte) ([]Problem, bool, error) {
	obj, err := Decode(data)
	if err != nil {
		return nil, false, err
	}
	problems, ok := s.Check(obj)
	return problems, ok, nil
}
