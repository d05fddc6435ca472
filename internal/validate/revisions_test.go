package validate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/strata-fleet/strata/internal/testing/testgit"
)

// revisionFleet is fleetFS's fleet with prod pinned to pin, in a Git clone
// whose tag v1 holds apps/old (a kustomization) and whose working tree
// holds apps/new instead: prod's guestbook (path apps/old, at its pin)
// and dev's (apps/new, at the branch) each exist only at their own
// revision.
func revisionFleet(t *testing.T, pin string) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name, data string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, f := range fleetFS() {
		write(name, string(f.Data))
	}
	kustomization := "resources:\n  - deployment.yaml\n"
	deployment := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: guestbook\n"
	write("apps/old/kustomization.yaml", kustomization)
	write("apps/old/deployment.yaml", deployment)
	testgit.Run(t, dir, "init", "-q", "-b", "main")
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-q", "-m", "v1")
	testgit.Run(t, dir, "tag", "v1")
	testgit.Run(t, dir, "mv", "apps/old", "apps/new")
	testgit.Run(t, dir, "commit", "-q", "-m", "apps/old is apps/new")
	config := string(fleetFS()["config/config.yaml"].Data)
	write("config/config.yaml", replaceOnce(t, config, "revision: v1.2.3", "revision: "+pin))
	write("config/workload/guestbook/values.yaml", `
applications:
  guestbook:
    source:
      repoURL: https://github.com/example/fleet
      path: apps/new
      targetRevision: '{{ .Values.cluster.revision }}'
    destination:
      namespace: guestbook
`)
	write("config/workload/guestbook/prod/override.yaml", `
applications:
  guestbook:
    source:
      path: apps/old
`)
	return dir
}

func replaceOnce(t *testing.T, s, old, repl string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("%q not in %q", old, s)
	}
	return strings.Replace(s, old, repl, 1)
}

// A source of the repository is checked at its own targetRevision in the
// Git clone (a pinned target's at its pin), the others in the working
// tree; a revision the clone does not have is said, not taken for the
// working tree.
func TestSourcesAtTheirRevision(t *testing.T) {
	const prodGuestbook = "rendered/workload/prod/us-east1/templates/guestbook.yaml"
	for _, tc := range []struct {
		name, pin string
		want      []Finding
	}{
		{name: "each path exists at its own revision", pin: "v1"},
		{name: "a revision the clone does not have", pin: "v9", want: []Finding{
			{Severity: Warning, Check: CheckSource, File: prodGuestbook, Line: 9, Path: "spec.source.path",
				Message: "targetRevision v9 is not a revision of this clone, so this source is not checked at it: no commit, branch or tag v9 (git fetch it, or correct the revision)",
				Source:  "config/workload/guestbook/prod/override.yaml:5:13"},
			{Severity: Warning, Check: CheckSource, File: "rendered/workload/prod/us-east1/templates/hello.yaml", Line: 12, Path: "spec.source.path",
				Message: "targetRevision v9 is not a revision of this clone, so this source is not checked at it: no commit, branch or tag v9 (git fetch it, or correct the revision)",
				Source:  "config/workload/hello/values.yaml:5:13"},
		}},
		{name: "the branch is the working tree", pin: "main", want: []Finding{
			{Severity: Error, Check: CheckSource, File: prodGuestbook, Line: 9, Path: "spec.source.path",
				Message: "path apps/old does not exist in this repository",
				Source:  "config/workload/guestbook/prod/override.yaml:5:13"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := revisionFleet(t, tc.pin)
			rep, err := Check(Options{FS: os.DirFS(dir), Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			got := filterChecks(rep.Findings, CheckSource)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

// A path missing at the source's revision says which revision.
func TestSourceMissingAtItsRevision(t *testing.T) {
	dir := revisionFleet(t, "v1")
	if err := os.WriteFile(filepath.Join(dir, "config/workload/guestbook/prod/override.yaml"),
		[]byte("applications:\n  guestbook:\n    source:\n      path: apps/new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Check(Options{FS: os.DirFS(dir), Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	want := []Finding{{Severity: Error, Check: CheckSource, File: "rendered/workload/prod/us-east1/templates/guestbook.yaml", Line: 9,
		Path: "spec.source.path", Message: "path apps/new does not exist in this repository (at targetRevision v1)",
		Source: "config/workload/guestbook/prod/override.yaml:4:13"}}
	if diff := cmp.Diff(want, filterChecks(rep.Findings, CheckSource)); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

func filterChecks(fs []Finding, check string) []Finding {
	var out []Finding
	for _, f := range fs {
		if string(f.Check) == check {
			out = append(out, f)
		}
	}
	return out
}
