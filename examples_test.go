package strata_test

// TestExamples renders every example fleet (each directory examples/*/ with
// a config/config.yaml) and checks that its committed rendered/ tree is up
// to date, byte for byte. A new example is picked up without any change
// here. After changing an example or the renderer, refresh them with
//
//	go test . -run TestExamples -update
//
// (in the module root: with ./..., packages that define no -update flag
// would refuse it).

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/strata-fleet/strata/internal/output"
)

var update = flag.Bool("update", false, "re-render the example fleets' rendered/ trees in place")

func TestExamples(t *testing.T) {
	configs, err := filepath.Glob(filepath.Join("examples", "*", "config", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(configs) == 0 {
		t.Fatal("no example fleets: no examples/*/config/config.yaml")
	}
	for _, cfg := range configs {
		dir := filepath.Dir(filepath.Dir(cfg))
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			if *update {
				updateExample(t, dir)
				return
			}
			checkExample(t, dir)
		})
	}
}

// updateExample re-renders dir's rendered/ in place.
func updateExample(t *testing.T, dir string) {
	res, err := output.Run(output.Options{Root: dir, FS: os.DirFS(dir)})
	if err != nil {
		t.Fatalf("rendering %s: %v", dir, err)
	}
	logWarnings(t, res)
	p := res.Plan
	if !p.Empty() {
		t.Logf("%s/rendered: %d created, %d updated, %d removed", dir,
			p.Count(output.Create), p.Count(output.Update), p.Count(output.Delete))
	}
}

// checkExample renders a copy of dir (without its rendered/) and compares
// the result with dir's committed rendered/.
func checkExample(t *testing.T, dir string) {
	tmp := t.TempDir()
	if err := copyFleet(dir, tmp); err != nil {
		t.Fatalf("copying %s: %v", dir, err)
	}
	res, err := output.Run(output.Options{Root: tmp, FS: os.DirFS(tmp)})
	if err != nil {
		t.Fatalf("rendering %s: %v", dir, err)
	}
	logWarnings(t, res)
	want, err := readTree(filepath.Join(tmp, "rendered"))
	if err != nil {
		t.Fatal(err)
	}
	have, err := readTree(filepath.Join(dir, "rendered"))
	if err != nil {
		t.Fatal(err)
	}
	var problems []string
	for _, name := range sortedKeys(want) {
		switch data, ok := have[name]; {
		case !ok:
			problems = append(problems, "missing: rendered/"+name)
		case !bytes.Equal(data, want[name]):
			problems = append(problems, "differs: rendered/"+name)
		}
	}
	for _, name := range sortedKeys(have) {
		if _, ok := want[name]; !ok {
			problems = append(problems, "stale:   rendered/"+name)
		}
	}
	if len(problems) > 0 {
		t.Errorf("%s/rendered is out of date (%d files):\n  %s\nrun: go test . -run TestExamples -update (in the module root)",
			dir, len(problems), strings.Join(problems, "\n  "))
	}
}

func logWarnings(t *testing.T, res *output.Result) {
	for _, w := range res.Warnings {
		t.Logf("warning: %s", w)
	}
}

// copyFleet copies the fleet repository src to dst, leaving out rendered/.
func copyFleet(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if rel == "rendered" && d.IsDir() {
			return fs.SkipDir
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case d.Type().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(target, data, 0o644)
		}
		return fmt.Errorf("%s: unsupported file type %s", p, d.Type())
	})
}

// readTree reads every file under root, keyed by slash path relative to
// root. A missing root is an empty tree.
func readTree(root string) (map[string][]byte, error) {
	out := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && p == root {
				return fs.SkipAll
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = data
		return nil
	})
	return out, err
}

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
