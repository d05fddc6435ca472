package strata_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestArchitectureNamesEveryPackage checks that ARCHITECTURE.md's table
// names every package under cmd/ and internal/ (as `dir/`), and that each
// has a package comment: a newcomer finds every package in the map, and
// its own doc when they open it.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	arch, err := os.ReadFile("ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	pkgs := map[string]bool{} // directory -> has a package comment
	for _, top := range []string{"cmd", "internal"} {
		err := filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			name := d.Name()
			if d.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				return nil
			}
			dir := filepath.ToSlash(filepath.Dir(p))
			f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				return err
			}
			pkgs[dir] = pkgs[dir] || f.Doc != nil
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(pkgs) < 30 {
		t.Fatalf("found %d packages; the walk is wrong", len(pkgs))
	}
	for dir, documented := range pkgs {
		if !strings.Contains(string(arch), "| `"+dir+"/`") && !strings.Contains(string(arch), ", `"+dir+"/`") {
			t.Errorf("ARCHITECTURE.md's table does not name %s/", dir)
		}
		if !documented {
			t.Errorf("%s has no package comment (doc.go)", dir)
		}
	}
}

// The test harness (internal/testing/) and the end-to-end tier
// (internal/e2e) are no part of strata: the product's packages never
// import them outside their _test.go files.
const (
	modulePath = "github.com/strata-fleet/strata"
	harnessDir = "internal/testing"
	e2eDir     = "internal/e2e"
)

// TestProductNeverImportsTheHarness checks that no Go file of the product
// (cmd/ and internal/ but internal/testing/ and internal/e2e, _test.go files
// aside) imports a package of internal/testing/ or internal/e2e.
func TestProductNeverImportsTheHarness(t *testing.T) {
	files := 0
	for _, top := range []string{"cmd", "internal"} {
		err := filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			slash := filepath.ToSlash(p)
			if d.IsDir() && (d.Name() == "testdata" || slash == harnessDir || slash == e2eDir) {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			files++
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			for _, imp := range f.Imports {
				path := strings.Trim(imp.Path.Value, `"`)
				for _, dir := range []string{harnessDir, e2eDir} {
					if path == modulePath+"/"+dir || strings.HasPrefix(path, modulePath+"/"+dir+"/") {
						t.Errorf("%s: the product imports %s, test code", fset.Position(imp.Pos()), path)
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 200 {
		t.Fatalf("read %d of the product's Go files; the walk is wrong", files)
	}
}

// TestHarnessLivesUnderInternalTesting checks that every package under
// internal/ that the strata binary does not link is test code in its place
// (internal/testing/, internal/e2e) or the schemas' generator: a new
// harness package beside the product's fails here.
func TestHarnessLivesUnderInternalTesting(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	list := func(args ...string) map[string]bool {
		out, err := exec.Command("go", append([]string{"list"}, args...)...).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", strings.Join(args, " "), err)
		}
		pkgs := map[string]bool{}
		for _, p := range strings.Fields(string(out)) {
			pkgs[p] = true
		}
		return pkgs
	}
	linked := list("-deps", "./cmd/strata")
	internal := list("./internal/...")
	if len(internal) < 30 || len(linked) < 30 {
		t.Fatalf("go list found %d packages under internal/ and %d linked: the listing is wrong", len(internal), len(linked))
	}
	harness := 0
	for p := range internal {
		dir := strings.TrimPrefix(p, modulePath+"/")
		switch {
		case linked[p]:
			if strings.HasPrefix(dir, harnessDir+"/") {
				t.Errorf("strata links %s, test code", p)
			}
		case strings.HasPrefix(dir, harnessDir+"/"):
			harness++
		case dir == e2eDir, dir == "internal/validate/gen":
		default:
			t.Errorf("%s is not linked into strata: test code goes under %s/", dir, harnessDir)
		}
	}
	if harness == 0 {
		t.Errorf("no package under %s/", harnessDir)
	}
}
