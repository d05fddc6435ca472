//go:build linux

package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// patch001 rolls version 1.1.0 of the demo chart's values out.
const patch001 = `# Roll demo 1.1.0 out, region by region.
metadata:
  description: demo 1.1.0
applications:
  demo:
    source:
      helm:
        valuesObject:
          version: "1.1.0"
`

// TestE2EProgressiveRollout: a patch created at one region, then strata
// promote step by step, each step committed. After each step exactly the
// clusters of the targets in scope run the new version, the others keep
// theirs; the manual gate of stage holds until approved; once everywhere,
// the patch is folded into values.yaml.
func TestE2EProgressiveRollout(t *testing.T) {
	e := Start(t, Options{Spokes: []Spoke{
		{Name: "spoke-a", Target: "integration/int-sector-1/us-east1"},
		{Name: "spoke-b", Target: "integration/int-sector-1/eu-west1"},
		{Name: "spoke-c", Target: "stage/stage-sector-1/ap-south1"},
	}})
	defer e.Done()
	mark := e.Mark()

	head := deploy(t, e)
	e.Converge(Expect{Head: head, Apps: expectApps(e), State: expectState(e, allAt(e, "1.0.0"))})
	mark("deploy the fleet at 1.0.0")

	versions := allAt(e, "1.0.0")
	step := func(name, message string, want []string, changes ...string) {
		t.Helper()
		prev := head
		head = e.Commit(message)
		if got := renderedTargets(e, prev, head); !slices.Equal(got, want) {
			t.Errorf("%s: rendered/ changed under %v, want %v", name, got, want)
		}
		for _, s := range changes {
			versions[s] = "1.1.0"
		}
		e.Converge(Expect{Head: head, Apps: expectApps(e), State: expectState(e, versions)})
		mark(name)
	}

	// The patch starts at the first region of the sequence.
	e.Repo.WriteFile("config/spoke/demo/integration/int-sector-1/us-east1/patch-001.yaml", patch001)
	e.MustStrata("render")
	step("patch-001 at integration/int-sector-1/us-east1", "demo 1.1.0 at us-east1",
		[]string{"rendered/spoke/integration/int-sector-1/us-east1"}, "spoke-a")

	// The next region; the sector then has it everywhere: coalesced.
	r := e.MustStrata("promote", "spoke", "demo", "patch-001")
	if !strings.Contains(r.Stdout, "promoted to integration/int-sector-1/eu-west1") {
		t.Errorf("promote: want the patch at eu-west1, got\n%s", r.Stdout)
	}
	step("promote to integration/int-sector-1/eu-west1", "promote patch-001 to eu-west1",
		[]string{"rendered/spoke/integration/int-sector-1/eu-west1"}, "spoke-b")

	// stage is a manual gate: refused without --approve, nothing changed.
	before := e.Repo.Git("status", "--porcelain")
	if r := e.Strata("promote", "spoke", "demo", "patch-001"); r.Code == 0 || !strings.Contains(r.Stderr, "stage") {
		t.Errorf("promote into stage without --approve: want a refusal naming the gate, got exit %d\n%s", r.Code, r.Stderr)
	}
	if after := e.Repo.Git("status", "--porcelain"); after != before {
		t.Errorf("a refused promotion changed the work tree:\n%s", cmp.Diff(before, after))
	}
	r = e.MustStrata("promote", "spoke", "demo", "patch-001", "--approve")
	if !strings.Contains(r.Stdout, "promoted to stage/stage-sector-1/ap-south1") {
		t.Errorf("promote: want the patch at ap-south1, got\n%s", r.Stdout)
	}
	step("promote to stage/stage-sector-1/ap-south1 (approved)", "promote patch-001 to stage",
		[]string{"rendered/spoke/stage/stage-sector-1/ap-south1"}, "spoke-c")

	// Every top-level node has it now: it was folded into values.yaml
	// (no other cluster changed above).
	if !strings.Contains(r.Stdout, "integrated") {
		t.Errorf("promote: want the patch integrated into values.yaml, got\n%s", r.Stdout)
	}
	if patches := patchFiles(t, e, "patch-001.yaml"); len(patches) > 0 {
		t.Errorf("patch-001 still at %v after its integration", patches)
	}
	if v := e.Repo.ReadFile("config/spoke/demo/values.yaml"); !strings.Contains(v, `version: "1.1.0"`) {
		t.Errorf("values.yaml after the integration:\n%s", v)
	}
}

// patchFiles returns the paths of the files called name under config/.
func patchFiles(t *testing.T, e *Env, name string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join(e.Repo.Dir, "config"), func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == name {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
