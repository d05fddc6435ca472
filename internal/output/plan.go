package output

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Op is what a change does to a file.
type Op string

// The operations of a plan.
const (
	Create Op = "create"
	Update Op = "update"
	Delete Op = "delete"
)

// Change is one file operation of a plan.
type Change struct {
	Op   Op     `json:"op"`
	Path string `json:"path"` // slash path relative to the repository
	Data []byte `json:"-"`    // the new content of a create or update
}

// Plan is the changes that bring rendered/ to the desired state.
type Plan struct {
	Changes []Change // writes first (in path order), then deletions
	// Dirs are directories to remove once their files are gone, deepest
	// first.
	Dirs []string
	// Unchanged counts the desired files already up to date (for Run, with
	// the files of the targets it did not need to render).
	Unchanged int
}

// Empty reports whether the plan changes nothing.
func (p *Plan) Empty() bool { return len(p.Changes) == 0 && len(p.Dirs) == 0 }

// Count returns how many changes of op the plan holds.
func (p *Plan) Count(op Op) int {
	n := 0
	for _, c := range p.Changes {
		if c.Op == op {
			n++
		}
	}
	return n
}

// Desired is the state PlanTree works towards: the files of the targets
// that were rendered, and the directories of targets whose files are known
// to be current and are left as they are.
type Desired struct {
	Files map[string][]byte // slash path -> content
	Keep  map[string]bool   // target directories kept untouched
}

// PlanTree compares desired with the directory outDir (a slash path
// relative to root, such as "rendered") and returns the plan.
func PlanTree(root, outDir string, desired Desired) (*Plan, error) {
	p := &Plan{}
	found := map[string]bool{}
	needDirs := map[string]bool{}
	for f := range desired.Files {
		for d := path.Dir(f); d != "." && d != outDir; d = path.Dir(d) {
			needDirs[d] = true
		}
	}
	for d := range desired.Keep {
		for ; d != "." && d != outDir; d = path.Dir(d) {
			needDirs[d] = true
		}
	}
	var dirs []string
	base := filepath.Join(root, filepath.FromSlash(outDir))
	err := filepath.WalkDir(base, func(fp string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && fp == base {
				return fs.SkipAll
			}
			return err
		}
		rel, _ := filepath.Rel(root, fp)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if desired.Keep[rel] {
				return fs.SkipDir
			}
			if rel != outDir && !needDirs[rel] {
				dirs = append(dirs, rel)
			}
			return nil
		}
		want, ok := desired.Files[rel]
		if !ok || d.Type()&fs.ModeSymlink != 0 {
			p.Changes = append(p.Changes, Change{Op: Delete, Path: rel})
			return nil
		}
		found[rel] = true
		have, err := os.ReadFile(fp)
		if err != nil {
			return fmt.Errorf("reading %s: %w", rel, err)
		}
		if bytes.Equal(have, want) {
			p.Unchanged++
			return nil
		}
		p.Changes = append(p.Changes, Change{Op: Update, Path: rel, Data: want})
		return nil
	})
	if err != nil {
		return nil, err
	}
	for f, data := range desired.Files {
		if !found[f] {
			p.Changes = append(p.Changes, Change{Op: Create, Path: f, Data: data})
		}
	}
	sort.SliceStable(p.Changes, func(i, j int) bool {
		a, b := p.Changes[i], p.Changes[j]
		if (a.Op == Delete) != (b.Op == Delete) {
			return b.Op == Delete
		}
		return a.Path < b.Path
	})
	sort.Slice(dirs, func(i, j int) bool {
		if ci, cj := strings.Count(dirs[i], "/"), strings.Count(dirs[j], "/"); ci != cj {
			return ci > cj
		}
		return dirs[i] < dirs[j]
	})
	p.Dirs = dirs
	return p, nil
}
