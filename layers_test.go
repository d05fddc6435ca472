package strata_test

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// fileLayers orders the files of the packages whose insides have walls,
// bottom first: a file uses only the declarations of the files before it
// (or its own), never those of a file that builds on it. A reader who
// changes a file reads only what is below it; a new file takes its place
// in the list.
var fileLayers = map[string][]string{
	"internal/rollout": {
		"doc.go",
		"events.go",
		"targets.go",
		"checks.go",
		"evaluate.go",
		"budget.go",
		"runner.go",
		"plan.go",
		"once.go",
		"wait.go",
		"unwatched.go",
		"record.go",
		"reach.go",
		"hold.go",
		"revert.go",
		"verify.go",
		"replay.go",
		"step.go",
		"resume.go",
		"gone.go",
		"dryrun.go",
		"rollout.go",
		"all.go",
	},
	"internal/rollout/writer": {
		"doc.go",
		"git.go",
		"expect.go",
		"firstcopies.go",
		"writer.go",
		"push.go",
		"batch.go",
	},
	"internal/rollout/livecache": {
		"doc.go",
		"scope.go",
		"refresh.go",
		"cache.go",
		"asks.go",
	},
	"internal/rollout/inflight": {
		"doc.go",
		"trailer.go",
		"patches.go",
		"settling.go",
		"flights.go",
	},
}

// TestFilesReferenceDownward checks the walls inside the packages of
// fileLayers: type-checked, each non-test file's uses of the package's
// own declarations (functions, types, variables, constants, methods and
// fields) name only files listed before it.
func TestFilesReferenceDownward(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list -export")
	}
	dirs := make([]string, 0, len(fileLayers))
	for dir := range fileLayers {
		dirs = append(dirs, dir)
	}
	sort.Strings(dirs)
	exports, goFiles := listPackages(t, dirs)
	for _, dir := range dirs {
		t.Run(dir, func(t *testing.T) {
			order, files := fileLayers[dir], goFiles[modulePath+"/"+dir]
			uses := fileUses(t, dir, files, exports)
			checkListed(t, dir, order, files, uses)
			rank := map[string]int{}
			for i, name := range order {
				rank[name] = i
			}
			arrows, back := map[[2]string]bool{}, map[[2]string]bool{}
			for _, u := range uses {
				arrow := [2]string{u.from, u.to}
				arrows[arrow] = true
				if rank[u.to] > rank[u.from] {
					back[arrow] = true
					t.Errorf("%s: %s uses %s of %s, a file that builds on it", u.pos, u.from, u.name, u.to)
				}
			}
			t.Logf("%s: %d file-to-file arrows, %d back up", dir, len(arrows), len(back))
		})
	}
}

// use is one file's first use of a declaration of another file of its
// package.
type use struct {
	from, to, name string
	pos            token.Position
}

// checkListed fails unless order lists every non-test file of dir once.
func checkListed(t *testing.T, dir string, order, files []string, uses map[string]use) {
	t.Helper()
	have := slices.Sorted(slices.Values(files))
	want := slices.Sorted(slices.Values(order))
	if !slices.Equal(slices.Compact(slices.Clone(want)), want) || !slices.Equal(want, have) {
		t.Fatalf("fileLayers[%q] lists %v; the package's files are %v: list each once, in its layer", dir, order, have)
	}
	if len(uses) == 0 {
		t.Fatalf("%s: no file uses another's declarations: the type check is wrong", dir)
	}
}

// fileUses type-checks the non-test files of dir (names, as go list
// lists them) and returns each file's uses of another file's
// declarations, one per pair of files and declaration, keyed
// "from -> to name".
func fileUses(t *testing.T, dir string, names []string, exports map[string]string) map[string]use {
	t.Helper()
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range names {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		if exports[path] == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(exports[path])
	})
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: imp}
	pkg, err := conf.Check(modulePath+"/"+dir, fset, files, info)
	if err != nil {
		t.Fatalf("type-checking %s: %v", dir, err)
	}
	uses := map[string]use{}
	for id, obj := range info.Uses {
		if obj.Pkg() != pkg || !obj.Pos().IsValid() {
			continue
		}
		from, to := fset.Position(id.Pos()), fset.Position(obj.Pos())
		if from.Filename == to.Filename {
			continue
		}
		u := use{from: filepath.Base(from.Filename), to: filepath.Base(to.Filename), name: declName(obj), pos: from}
		key := u.from + " -> " + u.to + " " + u.name
		if old, ok := uses[key]; !ok || posLess(u.pos, old.pos) {
			uses[key] = u
		}
	}
	return uses
}

// declName names obj as a reader finds it: a method or field with its
// type's name.
func declName(obj types.Object) string {
	switch o := obj.(type) {
	case *types.Func:
		if recv := o.Signature().Recv(); recv != nil {
			return types.TypeString(recv.Type(), func(*types.Package) string { return "" }) + "." + o.Name()
		}
	case *types.Var:
		if o.IsField() {
			return "field " + o.Name()
		}
	}
	return obj.Name()
}

func posLess(a, b token.Position) bool {
	if a.Filename != b.Filename {
		return a.Filename < b.Filename
	}
	return a.Offset < b.Offset
}

// listPackages builds the packages of dirs and their dependencies and
// returns where go list put each one's export data, and the non-test Go
// files of each (their build tags considered), by import path.
func listPackages(t *testing.T, dirs []string) (exports map[string]string, goFiles map[string][]string) {
	t.Helper()
	args := []string{"list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}\t{{join .GoFiles \" \"}}"}
	for _, d := range dirs {
		args = append(args, "./"+d)
	}
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		t.Fatalf("go %s: %v", strings.Join(args, " "), err)
	}
	exports, goFiles = map[string]string{}, map[string][]string{}
	for line := range strings.Lines(string(out)) {
		f := strings.Split(strings.TrimRight(line, "\n"), "\t")
		if len(f) != 3 {
			t.Fatalf("go list printed %q", line)
		}
		exports[f[0]], goFiles[f[0]] = f[1], strings.Fields(f[2])
	}
	return exports, goFiles
}
