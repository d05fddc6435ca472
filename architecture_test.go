package strata_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
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
