package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Media types of the OCI image specification (v1.1).
const (
	mediaIndex    = "application/vnd.oci.image.index.v1+json"
	mediaManifest = "application/vnd.oci.image.manifest.v1+json"
	mediaConfig   = "application/vnd.oci.image.config.v1+json"
	mediaLayer    = "application/vnd.oci.image.layer.v1.tar+gzip"
	refNameKey    = "org.opencontainers.image.ref.name"
	createdKey    = "org.opencontainers.image.created"
)

// Descriptor points at a blob (OCI image-spec descriptor.md).
type Descriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int64             `json:"size"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// ImageConfig is the part of the configuration a runtime reads.
type ImageConfig struct {
	User       string            `json:"User,omitempty"`
	Env        []string          `json:"Env,omitempty"`
	Entrypoint []string          `json:"Entrypoint,omitempty"`
	Cmd        []string          `json:"Cmd,omitempty"`
	WorkingDir string            `json:"WorkingDir,omitempty"`
	Labels     map[string]string `json:"Labels,omitempty"`
}

// History describes how one layer was made.
type History struct {
	Created   string `json:"created"`
	CreatedBy string `json:"created_by"`
}

// Config is the image configuration (OCI image-spec config.md).
type Config struct {
	Created      string      `json:"created"`
	Architecture string      `json:"architecture"`
	OS           string      `json:"os"`
	Config       ImageConfig `json:"config"`
	RootFS       struct {
		Type    string   `json:"type"`
		DiffIDs []string `json:"diff_ids"`
	} `json:"rootfs"`
	History []History `json:"history"`
}

// Manifest is an image manifest (OCI image-spec manifest.md).
type Manifest struct {
	SchemaVersion int               `json:"schemaVersion"`
	MediaType     string            `json:"mediaType"`
	Config        Descriptor        `json:"config"`
	Layers        []Descriptor      `json:"layers"`
	Annotations   map[string]string `json:"annotations,omitempty"`
}

// Index is an image layout's index.json (OCI image-spec image-index.md).
type Index struct {
	SchemaVersion int          `json:"schemaVersion"`
	MediaType     string       `json:"mediaType"`
	Manifests     []Descriptor `json:"manifests"`
}

// Image is what Build writes.
type Image struct {
	// Layers, lowest first, each with the history line that says what it
	// holds.
	Layers  []LayerSpec
	Comment []string
	Config  ImageConfig
	// Created is the image's creation time (the commit's, for a
	// reproducible image), Arch and OS its platform.
	Created  time.Time
	Arch, OS string
	// RefName names the image in index.json (its tag).
	RefName string
}

// Build writes img as an OCI image layout in the directory out, which must
// not exist: it is written beside it and renamed into place, so that out
// is either absent or whole. It returns the manifest's descriptor.
func Build(img Image, out string) (Descriptor, error) {
	if _, err := os.Lstat(out); err == nil {
		return Descriptor{}, fmt.Errorf("%s already exists: remove it first", out)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(out), "."+filepath.Base(out)+".tmp-")
	if err != nil {
		return Descriptor{}, err
	}
	defer os.RemoveAll(tmp)
	blobs := filepath.Join(tmp, "blobs", "sha256")
	if err := os.MkdirAll(blobs, 0o755); err != nil {
		return Descriptor{}, err
	}

	created := img.Created.UTC().Format(time.RFC3339)
	cfg := Config{Created: created, Architecture: img.Arch, OS: img.OS, Config: img.Config}
	cfg.RootFS.Type = "layers"
	man := Manifest{SchemaVersion: 2, MediaType: mediaManifest, Annotations: map[string]string{createdKey: created}}
	for i, spec := range img.Layers {
		l, err := writeLayerBlob(blobs, spec)
		if err != nil {
			return Descriptor{}, fmt.Errorf("layer %d (%s): %w", i+1, spec.Dir, err)
		}
		cfg.RootFS.DiffIDs = append(cfg.RootFS.DiffIDs, l.DiffID)
		cfg.History = append(cfg.History, History{Created: created, CreatedBy: img.Comment[i]})
		man.Layers = append(man.Layers, Descriptor{MediaType: mediaLayer, Digest: l.Digest, Size: l.Size})
	}
	if man.Config, err = writeJSONBlob(blobs, mediaConfig, cfg); err != nil {
		return Descriptor{}, err
	}
	desc, err := writeJSONBlob(blobs, mediaManifest, man)
	if err != nil {
		return Descriptor{}, err
	}
	desc.Annotations = map[string]string{refNameKey: img.RefName}
	index := Index{SchemaVersion: 2, MediaType: mediaIndex, Manifests: []Descriptor{desc}}
	if err := writeJSON(filepath.Join(tmp, "index.json"), index); err != nil {
		return Descriptor{}, err
	}
	if err := writeJSON(filepath.Join(tmp, "oci-layout"), map[string]string{"imageLayoutVersion": "1.0.0"}); err != nil {
		return Descriptor{}, err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return Descriptor{}, err
	}
	if err := os.Rename(tmp, out); err != nil {
		return Descriptor{}, err
	}
	return desc, nil
}

// writeLayerBlob writes a layer into blobs under its digest.
func writeLayerBlob(blobs string, spec LayerSpec) (Layer, error) {
	f, err := os.CreateTemp(blobs, ".layer-")
	if err != nil {
		return Layer{}, err
	}
	defer os.Remove(f.Name())
	l, err := WriteLayer(f, spec)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return Layer{}, err
	}
	return l, rename(f.Name(), blobs, l.Digest)
}

// writeJSONBlob writes v, encoded as JSON, into blobs under its digest.
func writeJSONBlob(blobs, mediaType string, v any) (Descriptor, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return Descriptor{}, err
	}
	sum := sha256.Sum256(data)
	d := Descriptor{MediaType: mediaType, Digest: "sha256:" + hex.EncodeToString(sum[:]), Size: int64(len(data))}
	return d, os.WriteFile(filepath.Join(blobs, strings.TrimPrefix(d.Digest, "sha256:")), data, 0o644)
}

func writeJSON(path string, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

func rename(tmp, blobs, digest string) error {
	if err := os.Chmod(tmp, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(blobs, strings.TrimPrefix(digest, "sha256:")))
}
