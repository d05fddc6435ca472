//go:build linux

package e2e

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/strata-fleet/strata/internal/testing/testenv"
	"github.com/strata-fleet/strata/internal/validate"
)

// breakage is a mistake in the configuration that renders, but that Argo
// CD's schemas reject.
type breakage struct {
	file, content string
	// field is the last element of the field path both strata validate and
	// the API server must name.
	field string
	// rendered are the rendered files it breaks.
	rendered []string
}

var breakages = []breakage{{
	file: "config/spoke/demo/integration/int-sector-1/us-east1/override.yaml",
	content: `# A quoted string where the schema wants a boolean.
applications:
  demo:
    syncPolicy:
      automated:
        prune: "sometimes"
`,
	field:    "prune",
	rendered: []string{"rendered/spoke/integration/int-sector-1/us-east1/templates/int-sector-1-us-east1-demo.yaml"},
}, {
	file: "config/spoke/demo/integration/int-sector-1/eu-west1/patch-900.yaml",
	content: `# A misspelt field (valuesObject).
applications:
  demo:
    source:
      helm:
        valueObject:
          version: "9.9.9"
`,
	field:    "valueObject",
	rendered: []string{"rendered/spoke/integration/int-sector-1/eu-west1/templates/int-sector-1-eu-west1-demo.yaml"},
}, {
	file: "config/spoke/demo/stage/override.yaml",
	content: `# A required field set to null.
applications:
  demo:
    destination: null
`,
	field:    "destination",
	rendered: []string{"rendered/spoke/stage/stage-sector-1/ap-south1/templates/stage-sector-1-ap-south1-demo.yaml"},
}, {
	file: "config/hub/spoke-info/integration/override.yaml",
	content: `# A value outside an enum.
applicationsets:
  spoke-info:
    syncPolicy:
      applicationsSync: create-all
`,
	field: "applicationsSync",
	rendered: []string{
		"rendered/hub/integration/int-sector-1/eu-west1/templates/spoke-info.yaml",
		"rendered/hub/integration/int-sector-1/us-east1/templates/spoke-info.yaml",
	},
}}

// TestE2EValidation: what strata validate rejects, the API server rejects
// too, and nothing else. Every rendered resource of the fleet, valid and
// then with four kinds of mistakes (a wrong type, an unknown field, a
// missing required field, a value outside an enum), is checked by strata
// validate and applied (server-side, dry run, strict field validation) to
// the hub, which has Argo CD's CRDs: both reject the same files, naming the
// same field. Committed, the broken tree fails Argo CD's sync with the API
// server's error, and the clusters keep what they ran; fixed (and the
// retried sync of the broken commit ended), they converge again.
func TestE2EValidation(t *testing.T) {
	e := Start(t, Options{Spokes: []Spoke{
		{Name: "spoke-a", Target: "integration/int-sector-1/us-east1"},
	}})
	defer e.Done()
	mark := e.Mark()

	// The valid fleet: both accept everything.
	e.MustStrata("render")
	if rejected := e.validateRejects(); len(rejected) > 0 {
		t.Errorf("strata validate rejects the example fleet: %v", rejected)
	}
	if rejected := e.serverRejects(); len(rejected) > 0 {
		t.Errorf("the API server rejects the example fleet: %v", rejected)
	}
	mark("validate and dry-run apply the valid fleet")

	head := deploy(t, e)
	before := expectState(e, allAt(e, "1.0.0"))
	e.Converge(Expect{Head: head, Apps: expectApps(e), State: before})
	mark("deploy the fleet")

	// The broken fleet: the same files rejected, for the same fields.
	want := map[string]string{} // rendered file -> field
	for _, b := range breakages {
		e.Repo.WriteFile(b.file, b.content)
		for _, f := range b.rendered {
			want[f] = b.field
		}
	}
	e.MustStrata("render")
	byValidate := e.validateRejects()
	byServer := e.serverRejects()
	if d := cmp.Diff(sortedKeys(want), sortedKeys(byValidate)); d != "" {
		t.Errorf("files strata validate rejects (-want +got):\n%s", d)
	}
	if d := cmp.Diff(sortedKeys(byValidate), sortedKeys(byServer)); d != "" {
		t.Errorf("files the API server rejects (-strata validate +API server):\n%s", d)
	}
	for file, field := range want {
		if v := byValidate[file]; !strings.Contains(v, field) {
			t.Errorf("%s: strata validate should name %s, says:\n%s", file, field, v)
		}
		if s := byServer[file]; !strings.Contains(s, field) {
			t.Errorf("%s: the API server should name %s, says:\n%s", file, field, s)
		}
	}
	mark("validate and dry-run apply the broken fleet")

	// Committed anyway: Argo CD's syncs fail with the API server's
	// error, and nothing changes in the clusters.
	broken := e.Commit("break the fleet")
	// The automated sync fails, and Argo CD retries it (phase Running)
	// or gives up (Failed); its message is the API server's.
	failed := func(field string) func(App) bool {
		return func(a App) bool {
			return a.Revision == broken && a.Phase != "Succeeded" && strings.Contains(a.Message, "is invalid") &&
				strings.Contains(a.Message, field)
		}
	}
	a := e.WaitApp("spoke-a-root", "failing to sync the invalid Application", failed("prune"))
	t.Logf("spoke-a-root: %s", a.Message)
	a = e.WaitApp("root", "failing to sync the invalid ApplicationSet", failed("applicationsSync"))
	t.Logf("root: %s", a.Message)
	if st, err := e.ReadState(); err != nil {
		t.Fatal(err)
	} else if d := cmp.Diff(before, st); d != "" {
		t.Errorf("the clusters changed after a failed sync (-before +after):\n%s", d)
	}
	mark("Argo CD refuses the broken commit")

	// Fixed: the fleet converges again.
	for _, b := range breakages {
		e.Repo.Remove(b.file)
	}
	e.MustStrata("render")
	e.MustStrata("validate")
	fixed := e.Commit("fix the fleet")
	// The fixed commit is what the clusters run: Synced at once. But an
	// automated sync that failed is retried (5 times, backing off from 5 s
	// to 80 s) at the revision it started with, the broken one, whatever
	// lands since: the operator ends it, as argocd app terminate-op does.
	for _, name := range []string{"root", "spoke-a-root"} {
		e.WaitApp(name, "Synced at the fixed commit", func(a App) bool { return a.Revision == fixed && a.Sync == "Synced" })
		e.TerminateOperation(name)
	}
	e.Converge(Expect{Head: fixed, Apps: expectApps(e), State: before})
	mark("the fixed commit converges")
}

// validateRejects runs strata validate -o json and returns the rendered
// files it finds errors in, each with its error findings.
func (e *Env) validateRejects() map[string]string {
	e.t.Helper()
	r := e.Strata("validate", "-o", "json")
	var rep validate.Report
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
		e.t.Fatalf("strata validate -o json: %v\n%s", err, r.Stderr)
	}
	out := map[string]string{}
	for _, f := range rep.Findings {
		if f.Severity != validate.Error {
			continue
		}
		out[f.File] += f.Path + ": " + f.Message + "\n"
	}
	if (len(out) > 0) != (r.Code != 0) {
		e.t.Errorf("strata validate: exit %d with %d files in error", r.Code, len(out))
	}
	return out
}

// serverRejects applies every resource under rendered/ to the hub
// (server-side apply, dry run, strict field validation) and returns the
// files the API server rejects, with its errors.
func (e *Env) serverRejects() map[string]string {
	e.t.Helper()
	var files []string
	err := filepath.WalkDir(filepath.Join(e.Repo.Dir, "rendered"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Base(filepath.Dir(p)) == "templates" {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		e.t.Fatal(err)
	}
	sort.Strings(files)
	out := map[string]string{}
	for _, p := range files {
		rel, _ := filepath.Rel(e.Repo.Dir, p)
		rel = filepath.ToSlash(rel)
		objs, err := testenv.ReadObjects(p)
		if err != nil {
			e.t.Fatalf("%s: %v", rel, err)
		}
		for _, obj := range objs {
			if err := e.dryRunApply(obj); err != nil {
				out[rel] += err.Error() + "\n"
			}
		}
	}
	return out
}

func (e *Env) dryRunApply(obj *unstructured.Unstructured) error {
	gvr := appGVR
	switch obj.GetKind() {
	case "Application":
	case "ApplicationSet":
		gvr = appSetGVR
	default:
		return errors.New("not an Argo CD resource: " + obj.GetKind())
	}
	data, err := json.Marshal(obj.Object)
	if err != nil {
		return err
	}
	ns := obj.GetNamespace()
	if ns == "" {
		ns = Namespace
	}
	ctx, cancel := e.ctx()
	defer cancel()
	force := true
	_, err = e.Dyn.Resource(gvr).Namespace(ns).Patch(ctx, obj.GetName(), types.ApplyPatchType, data, metav1.PatchOptions{
		DryRun:          []string{metav1.DryRunAll},
		Force:           &force,
		FieldManager:    "strata-e2e",
		FieldValidation: metav1.FieldValidationStrict,
	})
	return err
}
