package output

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/atomicfile"
)

// How an injected fault ends operation k.
type fault int

const (
	failing   fault = iota // the operation returns an error, the run goes on handling it
	crash                  // the process stops before the operation
	tornWrite              // the process stops halfway through writing a file (writes only)
)

func (f fault) String() string { return [...]string{"fail", "crash", "torn write"}[f] }

var (
	errInjected = errors.New("injected failure")
	errCrashed  = errors.New("crashed")
)

// faultyOps performs fileOps on the disk until operation at (counting
// from 0 in the order they start), which it ends with fault. After a crash
// no operation reaches the disk, as if the process had stopped: the code
// of the run that still executes changes nothing.
type faultyOps struct {
	diskOps
	at      int64
	fault   fault
	n       atomic.Int64
	crashed atomic.Bool
	isWrite atomic.Bool // operation at writes a file

	mu     sync.Mutex
	writes []bool // with at -1: which operations write
}

// before decides the fate of an operation: nil to perform it.
func (o *faultyOps) before(write bool) error {
	if o.crashed.Load() {
		return errCrashed
	}
	if o.at < 0 {
		o.mu.Lock()
		o.writes = append(o.writes, write)
		o.mu.Unlock()
	}
	if o.n.Add(1)-1 != o.at {
		return nil
	}
	o.isWrite.Store(write)
	if o.fault == failing {
		return errInjected
	}
	o.crashed.Store(true)
	return errCrashed
}

// torn reports whether operation at tears a write: write half the content,
// then stop.
func (o *faultyOps) torn() bool { return o.fault == tornWrite && o.n.Load()-1 == o.at }

func (o *faultyOps) Mkdir(r *os.Root, name string) error {
	if err := o.before(false); err != nil {
		return err
	}
	return o.diskOps.Mkdir(r, name)
}

// write is a write of a new file by do: performed, failed, or torn (half
// of data written, then the crash).
func (o *faultyOps) write(data []byte, do func([]byte) error) error {
	if err := o.before(true); err != nil {
		if o.torn() {
			do(data[:len(data)/2])
		}
		return err
	}
	return do(data)
}

func (o *faultyOps) WriteFile(r *os.Root, name string, data []byte) error {
	return o.write(data, func(d []byte) error { return o.diskOps.WriteFile(r, name, d) })
}

func (o *faultyOps) WriteFileAt(dir *os.File, name string, data []byte) (st Stamp, err error) {
	err = o.write(data, func(d []byte) error {
		st, err = o.diskOps.WriteFileAt(dir, name, d)
		return err
	})
	return st, err
}

func (o *faultyOps) WriteAtomic(r *os.Root, name string, data []byte) error {
	if err := o.before(true); err != nil {
		if o.torn() {
			// What a crash inside atomicfile leaves: half the temporary file.
			r.WriteFile(atomicfile.TempName(name), data[:len(data)/2], 0o644)
		}
		return err
	}
	return o.diskOps.WriteAtomic(r, name, data)
}

func (o *faultyOps) Link(r *os.Root, oldname, newname string) error {
	if err := o.before(false); err != nil {
		return err
	}
	return o.diskOps.Link(r, oldname, newname)
}

func (o *faultyOps) LinkAt(oldDir *os.File, oldname string, newDir *os.File, newname string) error {
	if err := o.before(false); err != nil {
		return err
	}
	return o.diskOps.LinkAt(oldDir, oldname, newDir, newname)
}

func (o *faultyOps) Rename(r *os.Root, oldname, newname string) error {
	if err := o.before(false); err != nil {
		return err
	}
	return o.diskOps.Rename(r, oldname, newname)
}

func (o *faultyOps) Exchange(r *os.Root, a, b string) error {
	if err := o.before(false); err != nil {
		return err
	}
	return o.diskOps.Exchange(r, a, b)
}

func (o *faultyOps) Remove(r *os.Root, name string) error {
	if err := o.before(false); err != nil {
		return err
	}
	return o.diskOps.Remove(r, name)
}

func (o *faultyOps) RemoveAll(r *os.Root, name string) error {
	if err := o.before(false); err != nil {
		return err
	}
	return o.diskOps.RemoveAll(r, name)
}

func (o *faultyOps) RemoveLocal(path string) error {
	if err := o.before(false); err != nil {
		return err
	}
	return o.diskOps.RemoveLocal(path)
}

func (o *faultyOps) SaveState(path string, data []byte) error {
	if err := o.before(true); err != nil {
		if o.torn() {
			os.WriteFile(filepath.Join(filepath.Dir(path), atomicfile.TempName(filepath.Base(path))), data[:len(data)/2], 0o644)
		}
		return err
	}
	return o.diskOps.SaveState(path, data)
}

// A render interrupted at any of its file operations, by an error, a crash
// or a crash halfway through a write, leaves every target's directory as
// it was or as the uninterrupted render leaves it, whole, and no stray
// file in rendered/; when targets are of both kinds, the journal is there.
// The next run completes it to exactly the tree of an uninterrupted
// render, leaves no staging area, and records a state that makes the run
// after it a no-op. For a first render (no rendered/), for a change, and
// for a change rendered by runs restricted to some targets (Options.Only, as
// promote's re-render), the next of which completes the interrupted one;
// with the default layout and with a layout of config.yaml (testLayout),
// whose output root's parent does not exist before the first render.
func TestInterruptedRenderIsAllOrNothing(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before map[string]string // the fleet rendered first, nil for none
		only   []string          // Options.Only of the runs after it
		layout bool              // the fleets have testLayout
		values bool              // the fleets have testValuesLayout: a values file beside each target
	}{
		{"first render", nil, nil, false, false},
		{"change", fleetV1, nil, false, false},
		{"change, restricted", fleetV1, []string{"rendered/mc/prod"}, false, false},
		{"first render, layout", nil, nil, true, false},
		{"change, layout", fleetV1, nil, true, false},
		{"change, restricted, layout", fleetV1, []string{"deploy/out/us-east1/prod/mc-manifests"}, true, false},
		{"first render, values files", nil, nil, true, true},
		{"change, values files", fleetV1, nil, true, true},
		{"change, restricted, values files", fleetV1, []string{"deploy/out/us-east1/prod/mc-manifests", "deploy/out/us-east1/prod/mc-values.yaml"}, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v1, v2, out, depth := tc.before, fleetV2, "rendered", 4
			switch {
			case tc.values:
				v1, v2, out, depth = withValuesLayout(v1, false), withValuesLayout(v2, true), testLayoutRoot, testLayoutDepth
			case tc.layout:
				v1, v2, out, depth = withLayout(v1), withLayout(v2), testLayoutRoot, testLayoutDepth
			}
			run := func(t *testing.T, dir, state string, ops fileOps) (*Result, error) {
				t.Helper()
				if ops == nil {
					ops = tickingOps{diskOps{exact: modesExact(dir)}, t}
				}
				return Run(Options{Root: dir, FS: os.DirFS(dir), StatePath: state, Only: tc.only, ops: ops})
			}
			setup := func(t *testing.T) (dir, state string) {
				dir, state = t.TempDir(), filepath.Join(t.TempDir(), "state")
				if v1 != nil {
					writeFiles(t, dir, v1)
					if _, err := Run(Options{Root: dir, FS: os.DirFS(dir), StatePath: state}); err != nil {
						t.Fatal(err)
					}
				}
				writeFiles(t, dir, v2)
				return dir, state
			}
			ref, refState := setup(t)
			old := readTree(t, ref, out)
			counter := &faultyOps{at: -1}
			if _, err := run(t, ref, refState, counter); err != nil {
				t.Fatal(err)
			}
			want := readTree(t, ref, out)
			if len(want) == 0 {
				t.Fatalf("nothing rendered under %s", out)
			}
			total := counter.n.Load()
			if total < 10 {
				t.Fatalf("the render did %d file operations; the fleet is too small to test anything", total)
			}
			for k := range total {
				for _, fl := range []fault{failing, crash, tornWrite} {
					if fl == tornWrite && !counter.writes[k] {
						continue
					}
					t.Run(fmt.Sprintf("op %d %s", k, fl), func(t *testing.T) {
						dir, state := setup(t)
						ops := &faultyOps{at: k, fault: fl}
						_, err := run(t, dir, state, ops)
						if fl == tornWrite && !ops.isWrite.Load() {
							t.Skip("not a write")
						}
						if fl == failing && err == nil {
							if diff := cmp.Diff(want, readTree(t, dir, out)); diff != "" {
								t.Fatalf("Run succeeded despite a failure, with another tree (-want +got):\n%s", diff)
							}
						}
						checkWholeTargets(t, dir, out, depth, old, want)

						if _, err := run(t, dir, state, nil); err != nil {
							t.Fatalf("the run after the interruption: %v", err)
						}
						if diff := cmp.Diff(want, readTree(t, dir, out)); diff != "" {
							t.Errorf("tree after the next run differs from the uninterrupted render (-want +got):\n%s", diff)
						}
						if _, err := os.Lstat(filepath.Join(dir, stagingDir)); !errors.Is(err, os.ErrNotExist) {
							t.Errorf("the next run left the staging area: %v", err)
						}
						// With values files every target renders again (no
						// state: beside.go), and writes nothing.
						res, err := run(t, dir, state, nil)
						if err != nil || (res.Rendered != 0 && !tc.values) || !res.Plan.Empty() {
							t.Errorf("a third run: %v, rendered %d, plan %+v; want a no-op", err, res.Rendered, res.Plan)
						}
					})
				}
			}
		})
	}
}

// besideFiles returns the files of the trees outside every target
// directory (depth segments deep): the values files.
func besideFiles(old, want map[string]string, depth int) map[string]bool {
	out := map[string]bool{}
	for _, tree := range []map[string]string{old, want} {
		for p := range tree {
			if !strings.HasSuffix(p, "/") && strings.Count(p, "/") < depth {
				out[p] = true
			}
		}
	}
	return out
}

// checkWholeTargets checks an interrupted tree under the output root out,
// whose target directories are depth segments deep: each target directory
// is entirely as before or entirely as after, nothing else is under out,
// and a mix of both has its journal.
func checkWholeTargets(t *testing.T, dir, out string, depth int, old, want map[string]string) {
	t.Helper()
	got := readTree(t, dir, out)
	before, after, now := targetsOf(old, depth), targetsOf(want, depth), targetsOf(got, depth)
	mixed := map[string]bool{}
	for d, files := range now {
		switch {
		case cmp.Equal(files, after[d]) && cmp.Equal(files, before[d]):
		case cmp.Equal(files, after[d]):
			mixed["new"] = true
		case cmp.Equal(files, before[d]):
			mixed["old"] = true
		default:
			t.Fatalf("%s holds neither its old files nor its new ones: %v", d, cmp.Diff(after[d], files))
		}
	}
	for d := range before {
		if now[d] == nil && after[d] != nil {
			mixed["old"] = true // not there yet
		}
		if now[d] == nil && after[d] == nil {
			mixed["new"] = true // removed
		}
	}
	for d := range after {
		if now[d] == nil && before[d] != nil {
			t.Fatalf("%s is missing: it had a tree before and has one after", d)
		}
		if now[d] == nil && before[d] == nil {
			mixed["old"] = true
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			if _, ok := old[p]; !ok {
				t.Fatalf("stray %s in rendered/", p)
			}
		}
	}
	// The files beside the targets' directories (values files): each as
	// before or as after.
	for _, p := range slices.Sorted(maps.Keys(besideFiles(old, want, depth))) {
		data, ok := got[p]
		o, inOld := old[p]
		n, inNew := want[p]
		switch {
		case ok && inNew && data == n && inOld && data == o:
		case ok && inNew && data == n, !ok && !inNew:
			mixed["new"] = true
		case ok && inOld && data == o, !ok && !inOld:
			mixed["old"] = true
		case !ok:
			t.Fatalf("%s is missing: it was there before and is after", p)
		default:
			t.Fatalf("%s holds neither its old content nor its new one: %q", p, data)
		}
	}
	if mixed["old"] && mixed["new"] {
		journal, err := JournalPath(dir)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Lstat(journal); err != nil {
			t.Fatalf("rendered/ mixes old and new targets without a journal to complete it: %v", err)
		}
	}
}
