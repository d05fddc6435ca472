package output_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/strata-fleet/strata/internal/output"
	"github.com/strata-fleet/strata/internal/rootfs"
	"github.com/strata-fleet/strata/internal/testing/benchfleet"
)

// benchFleet writes SPEC §9's bench fleet (or, under -short, a small one)
// into a temporary directory.
func benchFleet(b *testing.B) string {
	b.Helper()
	spec := benchfleet.DefaultSpec()
	if testing.Short() {
		spec.Sectors, spec.Regions = 2, 5
	}
	dir := b.TempDir()
	if err := benchfleet.Write(dir, spec); err != nil {
		b.Fatal(err)
	}
	return dir
}

func run(b *testing.B, dir string, opts output.Options) *output.Result {
	b.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer root.Close()
	opts.Root, opts.FS = dir, rootfs.New(root)
	res, err := output.Run(opts)
	if err != nil {
		b.Fatal(err)
	}
	return res
}

// BenchmarkRenderFull renders the whole fleet into an empty rendered/.
func BenchmarkRenderFull(b *testing.B) {
	dir := benchFleet(b)
	for b.Loop() {
		b.StopTimer()
		os.RemoveAll(filepath.Join(dir, "rendered"))
		b.StartTimer()
		run(b, dir, output.Options{})
	}
}

// BenchmarkRenderNoop re-renders a fleet that has not changed: nothing is
// rendered and nothing written.
func BenchmarkRenderNoop(b *testing.B) {
	dir := benchFleet(b)
	state := filepath.Join(b.TempDir(), "state")
	run(b, dir, output.Options{StatePath: state})
	for b.Loop() {
		res := run(b, dir, output.Options{StatePath: state})
		if res.Rendered != 0 || !res.Plan.Empty() {
			b.Fatalf("no-op run rendered %d targets and planned %d changes", res.Rendered, len(res.Plan.Changes))
		}
	}
}

// BenchmarkRenderOneOverride changes one region-level override between runs:
// only the targets under it render, only their changed files are written.
func BenchmarkRenderOneOverride(b *testing.B) {
	dir := benchFleet(b)
	state := filepath.Join(b.TempDir(), "state")
	run(b, dir, output.Options{StatePath: state})
	matches, _ := filepath.Glob(filepath.Join(dir, "config", "*", "*", "*", "*", "*", "override.yaml"))
	if len(matches) == 0 {
		b.Fatal("the bench fleet has no region-level override")
	}
	file := matches[0]
	orig, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		b.StopTimer()
		i++
		data := append([]byte{}, orig...)
		if i%2 == 1 {
			data = append(data, []byte("# changed\n")...)
			data = []byte(string(data))
		}
		// A comment changes the fingerprint, not the output: still only
		// the targets under the override re-render.
		if err := os.WriteFile(file, data, 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res := run(b, dir, output.Options{StatePath: state})
		if res.Rendered != 1 {
			b.Fatalf("one region override re-rendered %d targets, want 1", res.Rendered)
		}
	}
}
