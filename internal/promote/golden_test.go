package promote

import (
	"flag"
	"github.com/strata-fleet/strata/internal/testing/goldenfile"
	"os"
	"path/filepath"
	"testing"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/values"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ from the current output")

// TestIntegrateGolden folds testdata/integrate/patch.yaml into
// testdata/integrate/values.yaml: values.yaml's comments, blank lines, key
// order and quoting stay; a changed scalar keeps its line and comment; new
// keys come at the end of their mapping with the patch's own lines; the
// patch's metadata is left out. The result must decode to the merge of the
// two. Refresh with go test ./internal/promote -run Golden -update.
func TestIntegrateGolden(t *testing.T) {
	dir := filepath.Join("testdata", "integrate")
	src, err := os.ReadFile(filepath.Join(dir, "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	patch, err := os.ReadFile(filepath.Join(dir, "patch.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := integrate(fleet.NewFile(valuesPath, src), "patch-001.yaml", patch)
	if err != nil {
		t.Fatal(err)
	}

	base, err := values.Decode("values.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	content, err := fleet.PatchContent(fleet.NewFile("patch.yaml", patch))
	if err != nil {
		t.Fatal(err)
	}
	merged, err := values.Decode("golden", got)
	if err != nil {
		t.Fatal(err)
	}
	if want := values.Merge(base, content); !values.Equal(want, merged) {
		t.Errorf("folded values.yaml does not decode to the merge:\n%s\nwant\n%s", values.Encode(merged), values.Encode(want))
	}

	goldenfile.Check(t, filepath.Join(dir, "values.golden.yaml"), got, *update)
}
