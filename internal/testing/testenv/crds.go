package testenv

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// ArgoCDVersion is the Argo CD release whose CRDs [InstallArgoCDCRDs] installs.
const ArgoCDVersion = "v3.5.7"

// argoCDModule is the Go module that ships the CRDs in manifests/crds.
const argoCDModule = "github.com/argoproj/argo-cd/v3"

// EnvArgoCDCRDs names a directory holding the Argo CD CRD files, used instead
// of the Go module cache.
const EnvArgoCDCRDs = "STRATA_ARGOCD_CRDS"

// ArgoCDCRDFiles are the CRD files applied, in manifests/crds of the module.
var ArgoCDCRDFiles = []string{"application-crd.yaml", "applicationset-crd.yaml", "appproject-crd.yaml"}

// FieldManager is the server-side apply field manager of testenv.
const FieldManager = "strata-testenv"

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// crdDir caches the directory found by ArgoCDCRDDir for the test binary.
var crdDir struct {
	sync.Mutex
	path string
}

// ArgoCDCRDDir returns the directory holding the Argo CD CRDs: the one
// STRATA_ARGOCD_CRDS names, else manifests/crds of the argo-cd module at
// ArgoCDVersion, downloaded into the Go module cache on first use with
// `go mod download` (which leaves strata's go.mod alone).
func ArgoCDCRDDir() (string, error) {
	if dir := os.Getenv(EnvArgoCDCRDs); dir != "" {
		return dir, nil
	}
	crdDir.Lock()
	defer crdDir.Unlock()
	if crdDir.path != "" {
		return crdDir.path, nil
	}
	tmp, err := os.MkdirTemp("", "strata-testenv-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	mod := argoCDModule + "@" + ArgoCDVersion
	cmd := exec.Command("go", "mod", "download", "-json", mod)
	cmd.Dir = tmp // outside any module: nothing is added to a go.mod
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var info struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &info); jerr == nil && info.Error != "" {
		return "", fmt.Errorf("go mod download %s: %s", mod, info.Error)
	}
	if err != nil {
		return "", fmt.Errorf("go mod download %s: %w: %s", mod, err, bytes.TrimSpace(stderr.Bytes()))
	}
	if info.Dir == "" {
		return "", fmt.Errorf("go mod download %s: no directory in its output", mod)
	}
	crdDir.path = filepath.Join(info.Dir, "manifests", "crds")
	return crdDir.path, nil
}

// InstallArgoCDCRDs applies the Argo CD CRDs (Application, ApplicationSet,
// AppProject) to the server cfg reaches, server-side, since they are too large
// for the annotation of a client-side apply, and waits until each is
// established, that is, its resources are served.
func InstallArgoCDCRDs(t testing.TB, cfg *rest.Config) {
	t.Helper()
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := installArgoCDCRDs(ctx, cfg); err != nil {
		t.Fatalf("installing the Argo CD CRDs: %v", err)
	}
	t.Logf("Argo CD %s CRDs established in %s", ArgoCDVersion, time.Since(began).Round(time.Millisecond))
}

func installArgoCDCRDs(ctx context.Context, cfg *rest.Config) error {
	dir, err := ArgoCDCRDDir()
	if err != nil {
		return err
	}
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	crds := client.Resource(crdGVR)
	var names []string
	for _, file := range ArgoCDCRDFiles {
		objs, err := ReadObjects(filepath.Join(dir, file))
		if err != nil {
			return err
		}
		for _, obj := range objs {
			_, err := crds.Apply(ctx, obj.GetName(), obj, metav1.ApplyOptions{FieldManager: FieldManager, Force: true})
			if err != nil {
				return fmt.Errorf("applying %s from %s: %w", obj.GetName(), file, err)
			}
			names = append(names, obj.GetName())
		}
	}
	for _, name := range names {
		if err := waitEstablished(ctx, crds, name); err != nil {
			return err
		}
	}
	return nil
}

// ReadObjects decodes the YAML (or JSON) documents of a file, skipping empty
// ones.
func ReadObjects(path string) ([]*unstructured.Unstructured, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dec := utilyaml.NewYAMLOrJSONDecoder(f, 64*1024)
	var objs []*unstructured.Unstructured
	for {
		var m map[string]any
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			return objs, nil
		} else if err != nil {
			return nil, fmt.Errorf("decoding %s: %w", path, err)
		}
		if len(m) == 0 {
			continue
		}
		objs = append(objs, &unstructured.Unstructured{Object: m})
	}
}

// waitEstablished waits until the CRD has the conditions NamesAccepted and
// Established.
func waitEstablished(ctx context.Context, crds dynamic.ResourceInterface, name string) error {
	var last string
	err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		obj, err := crds.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
		status := map[string]string{}
		for _, c := range conds {
			if m, ok := c.(map[string]any); ok {
				typ, _ := m["type"].(string)
				st, _ := m["status"].(string)
				status[typ] = st
			}
		}
		last = fmt.Sprintf("conditions %v", status)
		return status["Established"] == "True" && status["NamesAccepted"] == "True", nil
	})
	if err != nil {
		return fmt.Errorf("waiting for CRD %s to be established (%s): %w", name, last, err)
	}
	return nil
}
