package promote

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/testing/benchfleet"
)

// The benchmarks run on SPEC §9's bench fleet (1,000 targets, 20
// components). Each promotes a patch of the fleet as it stands at one of
// three kinds of step, found by promoting the fleet's rollouts in memory:
//
//	copy       the patch is copied to the next location, nothing else
//	coalesce   the copy completes an environment: its copies become one
//	integrate  the copy completes the rollout: folded into values.yaml
//
// BenchmarkPrepare is the planning alone (the fleet loaded beforehand, its
// caches cold); BenchmarkPromote is what strata promote --no-render does:
// load the fleet from disk, plan, apply. The budget (SPEC §9) is 150 ms for
// the latter. Run:
//
//	go test -run '^$' -bench . -benchtime 20x ./internal/promote/

// benchStep is a promotion to measure: the fleet's files before it, and the
// promotion's options.
type benchStep struct {
	kind  string
	files fstest.MapFS
	opts  Options
}

var (
	benchOnce  sync.Once
	benchSteps []benchStep
	benchErr   error
)

// mapOps performs FileOps on an fstest.MapFS.
type mapOps fstest.MapFS

func (m mapOps) WriteFile(name string, data []byte) error {
	m[name] = &fstest.MapFile{Data: append([]byte(nil), data...), Mode: 0o644}
	return nil
}

func (m mapOps) Remove(name string) error { delete(m, name); return nil }

func (m mapOps) ReadFile(name string) ([]byte, error) {
	if f, ok := m[name]; ok {
		return f.Data, nil
	}
	return nil, fs.ErrNotExist
}

// mapJournal is the journal's key in a mapOps: not a path of the
// repository.
const mapJournal = "\x00journal"

func (m mapOps) WriteJournal(data []byte) error { return m.WriteFile(mapJournal, data) }
func (m mapOps) ReadJournal() ([]byte, error)   { return m.ReadFile(mapJournal) }
func (m mapOps) RemoveJournal() error           { return m.Remove(mapJournal) }

func cloneFS(m fstest.MapFS) fstest.MapFS {
	out := make(fstest.MapFS, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// findBenchSteps promotes each rollout of the bench fleet, in memory, until
// a step of each kind is found.
func findBenchSteps() ([]benchStep, error) {
	files, err := benchfleet.Files(benchfleet.DefaultSpec())
	if err != nil {
		return nil, err
	}
	base := fstest.MapFS{}
	for _, f := range files {
		base[f.Path] = &fstest.MapFile{Data: f.Data, Mode: 0o644}
	}
	f, err := fleet.Load(base)
	if err != nil {
		return nil, err
	}
	found := map[string]*benchStep{}
	ct := f.ClusterTypes[0]
	for _, c := range ct.Components {
		for _, name := range patchNames(c) {
			if len(found) == 3 {
				break
			}
			opts := Options{ClusterType: ct.Name, Component: c.Name, Patch: name, Approve: true}
			m := cloneFS(base)
			for range 100 {
				fl, err := fleet.Load(m)
				if err != nil {
					return nil, err
				}
				p, err := Prepare(fl, opts)
				if err != nil {
					break
				}
				kind := "copy"
				switch {
				case p.Integrated != "":
					kind = "integrate"
				case len(p.Coalesced) > 0:
					kind = "coalesce"
				}
				if found[kind] == nil {
					found[kind] = &benchStep{kind: kind, files: cloneFS(m), opts: opts}
				}
				if kind == "integrate" {
					break
				}
				if err := applyAll(mapOps(m), p); err != nil {
					return nil, err
				}
			}
		}
	}
	var out []benchStep
	for _, k := range []string{"copy", "coalesce", "integrate"} {
		if found[k] == nil {
			return nil, errors.New("bench fleet: no " + k + " step found")
		}
		out = append(out, *found[k])
	}
	return out, nil
}

func patchNames(c *fleet.Component) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range c.Levels {
		for _, p := range l.Patches {
			if n := strings.TrimSuffix(pathBase(p.Path), ".yaml"); !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out
}

func steps(b *testing.B) []benchStep {
	b.Helper()
	benchOnce.Do(func() { benchSteps, benchErr = findBenchSteps() })
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchSteps
}

// BenchmarkPrepare plans one promotion on a freshly loaded fleet.
func BenchmarkPrepare(b *testing.B) {
	for _, st := range steps(b) {
		b.Run(st.kind, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				f, err := fleet.Load(st.files)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if _, err := Prepare(f, st.opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPromote is strata promote --no-render: load the fleet from disk
// (through an os.Root, as the command does), plan, apply. Between
// iterations the files the promotion changed are put back.
func BenchmarkPromote(b *testing.B) {
	for _, st := range steps(b) {
		b.Run(st.kind, func(b *testing.B) {
			dir := b.TempDir()
			root := writeFleet(b, dir, st.files)
			ops := testOps(dir)
			var load, plan, apply time.Duration
			for b.Loop() {
				t0 := time.Now()
				// As strata promote does: only the component is loaded.
				f, err := fleet.LoadComponent(root.FS(), st.opts.ClusterType, st.opts.Component)
				if err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				p, err := Prepare(f, st.opts)
				if err != nil {
					b.Fatal(err)
				}
				t2 := time.Now()
				if err := applyAll(ops, p); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				load, plan, apply = load+t1.Sub(t0), plan+t2.Sub(t1), apply+time.Since(t2)
				for _, op := range p.Ops {
					if old, ok := st.files[op.Path]; ok {
						err = ops.WriteFile(op.Path, old.Data)
					} else {
						err = ops.Remove(op.Path)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
			}
			// Where the time goes: the loader, the plan, the file operations.
			n := float64(b.N)
			b.ReportMetric(float64(load.Milliseconds())/n, "load-ms/op")
			b.ReportMetric(float64(plan.Microseconds())/1000/n, "prepare-ms/op")
			b.ReportMetric(float64(apply.Microseconds())/1000/n, "apply-ms/op")
		})
	}
}

// BenchmarkLoad is the part of BenchmarkPromote that is the fleet loader's.
func BenchmarkLoad(b *testing.B) {
	st := steps(b)[0]
	dir := b.TempDir()
	root := writeFleet(b, dir, st.files)
	for b.Loop() {
		if _, err := fleet.Load(root.FS()); err != nil {
			b.Fatal(err)
		}
	}
}

// writeFleet writes files into dir and opens it as a root, closed with the
// benchmark.
func writeFleet(b *testing.B, dir string, files fstest.MapFS) *os.Root {
	b.Helper()
	for name, file := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, file.Data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { root.Close() })
	return root
}
