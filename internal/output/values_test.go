package output

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/atomicfile"
	"github.com/strata-fleet/strata/internal/fleet"
)

// The values file beside each target's directory (layout.values) is the
// target's own: written by the first render with its directory, rewritten
// only when its content changes (a run that changes only values writes
// only the values file), written back when edited or removed by hand
// (the render state stamps it with its target: beside.go), removed with its
// target, and refused when a link stands at its path. A run with nothing
// changed renders nothing.
func TestValuesFilesBesideTargets(t *testing.T) {
	dir, state := t.TempDir(), filepath.Join(t.TempDir(), "state")
	const prodFile = "deploy/out/us-east1/prod/mc-values.yaml"
	const header = "# Written by strata render from config/ (config.yaml's layout.values): edit config/, not this file.\n"
	writeFiles(t, dir, withValuesLayout(fleetV1, false))
	if _, err := run(t, dir, state, nil); err != nil {
		t.Fatal(err)
	}
	got := readTree(t, dir, testLayoutRoot)
	for _, p := range []string{"deploy/out/us-east1/dev/mc-values.yaml", prodFile, "deploy/out/eu-west1/prod/mc-values.yaml"} {
		if got[p] != header+"podinfo:\n  replicas: 1\n" {
			t.Errorf("%s = %q, want podinfo's replicas 1", p, got[p])
		}
	}

	// Nothing changed: the render state vouches for every target, values
	// file included.
	res, err := run(t, dir, state, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Rendered != 0 || len(res.Plan.Changes) != 0 || res.Plan.Unchanged != 15 {
		t.Errorf("a run with nothing changed: %d targets rendered, changes %v, %d files unchanged; want 0, none, 15 (3 targets of 5)", res.Rendered, res.Plan.Changes, res.Plan.Unchanged)
	}

	// A change of the values only: the values file is the one write.
	writeFiles(t, dir, map[string]string{"config/mc/podinfo/prod/override.yaml": "shard:\n  podinfo: {replicas: 3}\n"})
	res, err = run(t, dir, state, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{{Op: Update, Path: "deploy/out/eu-west1/prod/mc-values.yaml"}, {Op: Update, Path: prodFile}}
	if d := cmp.Diff(want, res.Plan.Changes); d != "" {
		t.Errorf("changes of a values-only change (-want +got):\n%s", d)
	}
	if got := readTree(t, dir, testLayoutRoot)[prodFile]; got != header+"podinfo:\n  replicas: 3\n" {
		t.Errorf("%s = %q after the change", prodFile, got)
	}
	if ids := res.Plan.Targets(mustConfig(t, dir)); !cmp.Equal(ids, []string{"mc/prod/eu-west1", "mc/prod/us-east1"}) {
		t.Errorf("Plan.Targets = %v, want the two prod targets (a values file is its target's)", ids)
	}

	// Edited, then removed, by hand: written back.
	for _, damage := range []func(p string) error{
		func(p string) error { return os.WriteFile(p, []byte("podinfo: {replicas: 9}\n"), 0o644) },
		os.Remove,
	} {
		if err := damage(filepath.Join(dir, prodFile)); err != nil {
			t.Fatal(err)
		}
		res, err := run(t, dir, state, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Rendered != 1 {
			t.Errorf("%d targets rendered after %s was damaged, want its own", res.Rendered, prodFile)
		}
		if got := readTree(t, dir, testLayoutRoot)[prodFile]; got != header+"podinfo:\n  replicas: 3\n" {
			t.Errorf("%s = %q after it was damaged by hand and rendered again", prodFile, got)
		}
	}

	// A target that goes takes its values file with it (fleetV2 drops
	// prod/eu-west1).
	writeFiles(t, dir, map[string]string{"config/config.yaml": withValuesLayout(fleetV2, true)["config/config.yaml"]})
	if _, err := run(t, dir, state, nil); err != nil {
		t.Fatal(err)
	}
	after := readTree(t, dir, testLayoutRoot)
	for p := range after {
		if filepath.Dir(p) == "deploy/out/eu-west1/prod" || p == "deploy/out/eu-west1/prod/" {
			t.Errorf("%s is left of a removed target", p)
		}
	}
	if _, ok := after["deploy/out/asia-east1/dev/mc-values.yaml"]; !ok {
		t.Error("the new target dev/asia-east1 has no values file")
	}

	// A link at the values file's path is refused, naming it, and nothing
	// changes.
	p := filepath.Join(dir, prodFile)
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", p); err != nil {
		t.Fatal(err)
	}
	_, err = run(t, dir, state, nil)
	if _, ok := errors.AsType[*atomicfile.SymlinkError](err); !ok {
		t.Fatalf("a link at %s: %v, want a SymlinkError", prodFile, err)
	}
	if target, _ := os.Readlink(p); target != "/etc/passwd" {
		t.Errorf("the link was changed: %q", target)
	}
}

// mustConfig reads the config.yaml of the repository at dir.
func mustConfig(t *testing.T, dir string) *fleet.Config {
	t.Helper()
	c, err := fleet.ReadConfig(os.DirFS(dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
