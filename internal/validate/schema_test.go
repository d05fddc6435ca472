package validate

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/strata-fleet/strata/internal/validate/schemas"
)

// TestSchemasBuild builds the validator of every CRD version embedded, and
// checks the header that says where the schemas come from.
func TestSchemasBuild(t *testing.T) {
	s, err := ArgoCD()
	if err != nil {
		t.Fatal(err)
	}
	if s.Source.Module != "github.com/argoproj/argo-cd/v3" || s.Source.Version != schemas.ArgoCDVersion || s.Source.License == "" {
		t.Errorf("source = %+v, want the argo-cd module at %s with its licence", s.Source, schemas.ArgoCDVersion)
	}
	want := []string{"AppProject", "Application", "ApplicationSet"}
	if got := s.Kinds(); !slices.Equal(got, want) {
		t.Errorf("kinds = %v, want %v", got, want)
	}
	for gvk, r := range s.byGVK {
		if err := r.ready(); err != nil {
			t.Errorf("%s: %v", gvk, err)
		}
	}
}

// TestSchemasCurrent re-runs the generator (which downloads the argo-cd
// module into the Go module cache) and checks that the embedded schemas are
// what it extracts. Refresh them with go generate ./internal/validate.
func TestSchemasCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping under -short: downloads the argo-cd module")
	}
	out := filepath.Join(t.TempDir(), schemas.FileName)
	cmd := exec.Command("go", "run", "./gen", "-o", out)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go run ./gen: %v", err)
	}
	fresh, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := schemas.Uncompress(schemas.Data())
	if err != nil {
		t.Fatal(err)
	}
	want, err := schemas.Uncompress(fresh)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("schemas/%s is out of date: run go generate ./internal/validate", schemas.FileName)
	}
}
