package scaffold

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/strata-fleet/strata/internal/testing/goldenfile"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestCITemplates: the CI definitions strata init writes, the checks and
// the scheduled delivery (rollout --all --once), are what testdata holds,
// and read as YAML.
func TestCITemplates(t *testing.T) {
	dir := t.TempDir()
	if _, err := Write(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{".github/workflows/fleet.yaml", ".github/workflows/deliver.yaml", ".gitlab-ci.yml"} {
		data, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := yaml.Unmarshal(data, &doc); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		goldenfile.Check(t, filepath.Join("testdata", filepath.Base(p)+".golden"), data, *update)
	}
}
