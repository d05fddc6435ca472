package promote

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/atomicfile"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/values"
)

// How an injected fault ends operation k.
type fault int

const (
	failing   fault = iota // the operation returns an error; Apply returns
	crash                  // the process stops before the operation
	tornWrite              // the process stops halfway through writing (writes only)
)

func (f fault) String() string { return [...]string{"fail", "crash", "torn write"}[f] }

var errInjected = errors.New("injected failure")

// crashed is what faultyOps panics with to stop Apply dead, as a crash
// would: no code of Apply runs after it.
type crashed struct{}

// faultyOps performs FileOps on a directory until operation at (counting
// writes and removals from 0), which it ends with fault.
type faultyOps struct {
	DirOps
	at    int
	fault fault
	n     int
}

func (o *faultyOps) hit() bool {
	k := o.n
	o.n++
	return k == o.at
}

func (o *faultyOps) WriteFile(name string, data []byte) error {
	if !o.hit() {
		return o.DirOps.WriteFile(name, data)
	}
	switch o.fault {
	case crash:
		panic(crashed{})
	case tornWrite:
		// What a crash inside WriteFile leaves: half the content in the
		// temporary file, never renamed.
		p := filepath.Join(o.Root, filepath.FromSlash(atomicfile.TempName(name)))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			panic(err)
		}
		if err := os.WriteFile(p, data[:len(data)/2], 0o644); err != nil {
			panic(err)
		}
		panic(crashed{})
	}
	return errInjected
}

func (o *faultyOps) Remove(name string) error {
	if !o.hit() {
		return o.DirOps.Remove(name)
	}
	if o.fault != failing {
		panic(crashed{})
	}
	return errInjected
}

func (o *faultyOps) WriteJournal(data []byte) error {
	if !o.hit() {
		return o.DirOps.WriteJournal(data)
	}
	switch o.fault {
	case crash:
		panic(crashed{})
	case tornWrite:
		p := filepath.Join(o.State, atomicfile.TempName(JournalName))
		if err := os.MkdirAll(o.State, 0o755); err != nil {
			panic(err)
		}
		if err := os.WriteFile(p, data[:len(data)/2], 0o644); err != nil {
			panic(err)
		}
		panic(crashed{})
	}
	return errInjected
}

func (o *faultyOps) RemoveJournal() error {
	if !o.hit() {
		return o.DirOps.RemoveJournal()
	}
	if o.fault != failing {
		panic(crashed{})
	}
	return errInjected
}

// applyWithFault runs Apply through ops and reports how it ended.
//
//nolint:revive // error-return: reads as "err, didCrash :=" at its four calls, like a comma-ok
func applyWithFault(ops *faultyOps, p *Plan) (err error, didCrash bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(crashed); !ok {
				panic(r)
			}
			didCrash = true
		}
	}()
	return Apply(ops, p), false
}

// A multi-operation promotion to interrupt.
type interrupted struct {
	name    string
	config  string
	files   map[string]string
	opts    Options
	content string // the patch's content
	nOps    int    // the plan's operations
}

var interruptions = []interrupted{
	{
		name:   "copy and coalesce",
		config: realConfig,
		files: with(patchesAt("integration/int-sector-1/us-central1", "integration/int-sector-1/europe-west1"),
			map[string]string{patchFile("integration/int-sector-1/us-central1", "patch-002"): "applications:\n  test-app:\n    project: other\n"}),
		content: testPatch,
		nOps:    3, // write integration; remove both regions
	},
	{
		name:   "copy, coalesce and integrate",
		config: seedConfig,
		files: map[string]string{
			patchFile("integration", "patch-001"):            seedPatch,
			patchFile("stage", "patch-001"):                  seedPatch,
			patchFile("production/prod-canary", "patch-001"): seedPatch,
			patchFile("stage/stage-sector-2", "patch-002"):   "applications:\n  test-app:\n    project: other\n",
		},
		opts:    Options{Approve: true},
		content: seedPatch,
		nOps:    5, // write values.yaml and history.yaml; remove three copies
	},
}

// TestInterruptedPromotionIsRecoverable interrupts a promotion at every one
// of its file operations (the journal's write and its move to the render
// stage included), by an error, a crash, and a crash halfway through a
// write. After each: the fleet still loads or only a torn temporary file is
// in the way, every target's values are those before or after the
// promotion (so no patch's content is lost), Pending reports the journal,
// and Resume completes the promotion to exactly the tree an uninterrupted
// one leaves, with the journal at the render stage until Finish.
func TestInterruptedPromotionIsRecoverable(t *testing.T) {
	for _, in := range interruptions {
		t.Run(in.name, func(t *testing.T) {
			in.opts.Now = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC) // the fold's record says when
			// The uninterrupted promotion.
			ref := t.TempDir()
			writeTree(t, ref, in.config, in.files)
			start := readTree(t, ref)
			before := targetValues(t, loadDir(t, ref))
			p := mustPrepare(t, loadDir(t, ref), in.opts)
			if len(p.Ops) != in.nOps {
				t.Fatalf("plan has %d operations, want %d: %v", len(p.Ops), in.nOps, opList(p))
			}
			if err := applyAll(testOps(ref), p); err != nil {
				t.Fatal(err)
			}
			want := readTree(t, ref)
			after := targetValues(t, loadDir(t, ref))

			total := len(p.Ops) + 2 // the journal's write and its move to the render stage
			for k := range total {
				for _, fl := range []fault{failing, crash, tornWrite} {
					isWrite := k == 0 || k == total-1 || p.Ops[k-1].Kind == "write"
					if fl == tornWrite && !isWrite {
						continue
					}
					t.Run(fmt.Sprintf("op %d %s", k, fl), func(t *testing.T) {
						dir := t.TempDir()
						writeTree(t, dir, in.config, in.files)
						plan := mustPrepare(t, loadDir(t, dir), in.opts)
						ops := testOps(dir)
						err, didCrash := applyWithFault(&faultyOps{DirOps: ops, at: k, fault: fl}, plan)
						if fl == failing && (didCrash || !errors.Is(err, errInjected)) {
							t.Fatalf("Apply: %v (crashed %v), want the injected error", err, didCrash)
						}
						if fl != failing && !didCrash {
							t.Fatalf("Apply did not reach operation %d", k)
						}
						if fl == failing && k > 0 && k < total-1 && !strings.Contains(err.Error(), "strata promote --resume") {
							t.Errorf("error does not say how to recover: %v", err)
						}

						checkNothingLost(t, dir, in, before, after, fl == tornWrite)

						pending, err := Pending(ops)
						if err != nil {
							t.Fatal(err)
						}
						if k == 0 {
							// The journal was never written: nothing
							// happened; the promotion runs again.
							if pending != nil {
								t.Fatalf("Pending reports a journal that was never written")
							}
							if diff := cmp.Diff(start, withoutTemp(readTree(t, dir))); diff != "" {
								t.Fatalf("the tree changed before the journal was written (-start +now):\n%s", diff)
							}
							plan = mustPrepare(t, loadDir(t, dir), in.opts)
							if err := applyAll(ops, plan); err != nil {
								t.Fatal(err)
							}
						} else {
							if pending == nil {
								t.Fatalf("Pending reports no journal after an interruption at operation %d", k)
							}
							if diff := cmp.Diff(plan, pending.Plan); diff != "" {
								t.Errorf("Pending (-planned +journal):\n%s", diff)
							}
							resumed, err := Resume(ops)
							if err != nil {
								t.Fatalf("Resume: %v", err)
							}
							if resumed == nil || resumed.Plan.Target != plan.Target || resumed.Stage != StageRender {
								t.Errorf("Resume returned %+v", resumed)
							}
							if j, err := Pending(ops); err != nil || j == nil || j.Stage != StageRender {
								t.Errorf("after Resume, Pending = %+v, %v; want the render stage", j, err)
							}
							if err := Finish(ops); err != nil {
								t.Fatalf("Finish: %v", err)
							}
						}
						if diff := cmp.Diff(want, readTree(t, dir)); diff != "" {
							t.Errorf("tree after recovery differs from the uninterrupted promotion (-want +got):\n%s", diff)
						}
						if again, err := Resume(ops); again != nil || err != nil {
							t.Errorf("a second Resume: %v, %v; want nothing to do", again, err)
						}
					})
				}
			}
		})
	}
}

// checkNothingLost checks an interrupted tree: the patch's content is in a
// patch file or already in values.yaml, and every target's values are those
// before or after the promotion.
func checkNothingLost(t *testing.T, dir string, in interrupted, before, after map[string]*values.Value, torn bool) {
	t.Helper()
	tree := readTree(t, dir)
	held := false
	for p, data := range tree {
		if strings.HasSuffix(p, "/patch-001.yaml") && data == in.content {
			held = true
		}
	}
	if !held {
		v, err := values.Decode(valuesPath, []byte(tree[valuesPath]))
		if err != nil {
			t.Fatalf("values.yaml: %v", err)
		}
		if got := v.Lookup("applications", "test-app", "source", "targetRevision"); got == nil || got.Text != "2.0.0" {
			t.Fatalf("patch-001's content is nowhere: no copy and values.yaml does not hold it:\n%s", tree[valuesPath])
		}
	}
	// A torn write leaves its temporary file, which the loader would take
	// for a stray file: look at the rest (Resume replaces it).
	fsys := fstest.MapFS{}
	for p, data := range withoutTemp(tree) {
		if !strings.HasSuffix(p, "/") {
			fsys[p] = &fstest.MapFile{Data: []byte(data)}
		}
	}
	for p := range tree {
		if !torn && strings.HasSuffix(p, ".strata-tmp") {
			t.Errorf("temporary file left by a write that did not tear: %s", p)
		}
	}
	f, err := fleet.Load(fsys)
	if err != nil {
		t.Fatalf("the interrupted tree does not load: %v", err)
	}
	now := targetValues(t, f)
	for id, v := range now {
		if !values.Equal(v, before[id]) && !values.Equal(v, after[id]) {
			t.Errorf("%s: values are neither those before nor those after the promotion:\n%s", id, values.Encode(v))
		}
	}
}

// targetValues returns test-app's values at every target.
func targetValues(t *testing.T, f *fleet.Fleet) map[string]*values.Value {
	t.Helper()
	c := f.ClusterType(ct)
	out := map[string]*values.Value{}
	for _, n := range f.Targets {
		v, err := c.ComponentValues(c.Component(app), n)
		if err != nil {
			t.Fatalf("%s: %v", n.ID(), err)
		}
		out[n.ID()] = v
	}
	return out
}

func withoutTemp(tree map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range tree {
		if !strings.HasSuffix(k, ".strata-tmp") && k != ".strata/" {
			out[k] = v
		}
	}
	return out
}

// TestResumeDoesNotOverwriteEdits: a file edited after the plan was made
// (by hand, after an interruption) is not overwritten or removed: Apply and
// Resume refuse before doing anything, naming the file.
func TestResumeDoesNotOverwriteEdits(t *testing.T) {
	edited := "# edited after the crash\n" + testPatch
	tests := []struct {
		name      string
		at        int    // interrupt at this operation; -1: do not apply at all
		edit      string // the file edited
		resume    bool
		integrate bool // a promotion that folds the patch into values.yaml
	}{
		{"a copy edited after the crash, before its removal", 2, patchFile("integration/int-sector-1/us-central1", "patch-001"), true, false},
		{"a written copy edited after the crash", 2, patchFile("integration", "patch-001"), true, false},
		{"values.yaml edited between plan and apply", -1, valuesPath, false, true},
		{"a copy edited between plan and apply", -1, patchFile("integration/int-sector-1/europe-west1", "patch-001"), false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			locations := []string{"integration/int-sector-1/us-central1", "integration/int-sector-1/europe-west1"}
			if tt.integrate {
				locations = []string{"integration", "stage", "production"}
			}
			writeTree(t, dir, realConfig, patchesAt(locations...))
			p := mustPrepare(t, loadDir(t, dir), Options{})
			if tt.at >= 0 {
				if _, didCrash := applyWithFault(&faultyOps{DirOps: testOps(dir), at: tt.at, fault: crash}, p); !didCrash {
					t.Fatal("no crash")
				}
			}
			if err := testOps(dir).WriteFile(tt.edit, []byte(edited)); err != nil {
				t.Fatal(err)
			}
			before := readTree(t, dir)
			var err error
			if tt.resume {
				_, err = Resume(testOps(dir))
			} else {
				err = Apply(testOps(dir), p)
			}
			want := tt.edit + " changed since the promotion was planned; nothing was done"
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("got %v, want %q...", err, want)
			}
			if diff := cmp.Diff(before, readTree(t, dir)); diff != "" {
				t.Errorf("files changed (-before +after):\n%s", diff)
			}
		})
	}
}
