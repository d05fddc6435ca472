// Package schemas holds the OpenAPI schemas of Argo CD's CustomResourceDefinitions,
// extracted from Argo CD's own manifests by ../gen and embedded in strata, so
// that strata validate works offline.
//
// The data file, argocd-<version>.json.gz, is gzipped JSON: a header naming
// the Go module, version and licence it comes from, then per CRD its names,
// scope and, per version, the openAPIV3Schema (descriptions removed: they do
// not take part in validation) and whether the status subresource is on.
// Regenerate it with `go generate ./internal/validate`.
package schemas

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// ArgoCDVersion is the Argo CD release the embedded schemas come from; the
// data file's header says the same (a test checks).
const ArgoCDVersion = "v3.5.7"

// FileName is the name of the embedded data file.
const FileName = "argocd-" + ArgoCDVersion + ".json.gz"

//go:embed argocd-v3.5.7.json.gz
var data []byte

// File is the content of the data file.
type File struct {
	Source Source `json:"source"`
	CRDs   []CRD  `json:"crds"`
}

// Source says where the schemas come from.
type Source struct {
	Module  string   `json:"module"`
	Version string   `json:"version"`
	Sum     string   `json:"sum"`
	License string   `json:"license"`
	Files   []string `json:"files"`
	Note    string   `json:"note"`
}

// CRD is one CustomResourceDefinition.
type CRD struct {
	Name       string    `json:"name"`
	Group      string    `json:"group"`
	Kind       string    `json:"kind"`
	Plural     string    `json:"plural"`
	Namespaced bool      `json:"namespaced"`
	Versions   []Version `json:"versions"`
}

// Version is one version of a CRD.
type Version struct {
	Name              string                           `json:"name"`
	Served            bool                             `json:"served"`
	Storage           bool                             `json:"storage"`
	StatusSubresource bool                             `json:"statusSubresource"`
	Schema            *apiextensionsv1.JSONSchemaProps `json:"openAPIV3Schema"`
}

// Data returns the embedded data file, gzipped.
func Data() []byte { return data }

// Load decodes the embedded data file.
func Load() (*File, error) { return Decode(data) }

// Decode decodes a data file (gzipped JSON).
func Decode(gz []byte) (*File, error) {
	raw, err := Uncompress(gz)
	if err != nil {
		return nil, err
	}
	var f File
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, fmt.Errorf("decoding the Argo CD schemas: %w", err)
	}
	return &f, nil
}

// Uncompress returns the JSON of a data file.
func Uncompress(gz []byte) ([]byte, error) {
	r, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("reading the Argo CD schemas: %w", err)
	}
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading the Argo CD schemas: %w", err)
	}
	return raw, nil
}
