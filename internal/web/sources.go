package web

import (
	"errors"
	"io/fs"
	"slices"

	"github.com/strata-fleet/strata/internal/render"
	"github.com/strata-fleet/strata/internal/treestamp"
)

// sourceDirs are the directories the fleet is made of; a change under them
// reloads it.
var sourceDirs = []string{"config", render.ChartDir}

// sources is what one look at the repository saw of sourceDirs: every
// directory and file with its stamp, each directory before what it holds.
type sources struct {
	entries []source
	// complete is false when a directory could not be listed: such a scan
	// is redone at every look rather than trusted.
	complete bool
	// racy is true when a stamp could not tell a change made after the
	// scan (treestamp's rule): the next look loads the fleet again
	// whatever it sees.
	racy bool
}

// source is one directory or file and its stamp (named by its path).
type source struct {
	stamp  treestamp.Stamp
	mode   fs.FileMode
	err    string // why the path could not be read
	absent bool   // a directory of sourceDirs that does not exist
}

// scanSources lists sourceDirs and stamps what they hold; then it reads
// the clock with now (treestamp.Now: the server writes nothing) to tell
// which stamps are racy. Callers load the fleet after the scan: a change
// made after the clock was read moves a stamp or finds it racy, one made
// before is in what the load reads.
func scanSources(fsys fs.FS, now func() int64) sources {
	src := sources{complete: true}
	failed := func(p string, err error) {
		src.entries = append(src.entries, source{stamp: treestamp.Stamp{Name: p}, err: err.Error()})
		src.complete = false
	}
	for _, dir := range sourceDirs {
		err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
			if p == dir && errors.Is(err, fs.ErrNotExist) {
				src.entries = append(src.entries, source{stamp: treestamp.Stamp{Name: p}, absent: true})
				return nil
			}
			if err != nil {
				failed(p, err)
				return nil
			}
			info, err := d.Info()
			if err != nil {
				failed(p, err)
				return nil
			}
			src.entries = append(src.entries, source{stamp: treestamp.Of(p, info), mode: info.Mode()})
			return nil
		})
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			failed(dir, err)
		}
	}
	clock := now()
	src.racy = slices.ContainsFunc(src.entries, func(e source) bool { return e.stamp.Racy(clock) })
	return src
}

// same reports whether two scans saw the same tree.
func (s sources) same(o sources) bool { return slices.Equal(s.entries, o.entries) }

// current reports, without listing a directory, whether the repository
// still holds what s saw: each directory and file has the stamp it had,
// each directory checked before what it holds (treestamp.Dir); false
// where the system offers no such check or fsys cannot open "." as an
// *os.File (os.DirFS, an os.Root's FS do), and for an incomplete or racy
// scan. While a directory's stamp is unchanged it holds the same names for
// the same inodes (package treestamp says why).
func (s sources) current(fsys fs.FS) bool {
	if !s.complete || s.racy || len(s.entries) == 0 {
		return false
	}
	f, err := fsys.Open(".")
	if err != nil {
		return false
	}
	defer f.Close()
	return treestamp.Look(f, func(d treestamp.Dir) bool {
		for _, e := range s.entries {
			if e.absent && !d.Lacks(e.stamp.Name) || !e.absent && !d.Has(e.stamp.Name, e.mode.Type(), e.stamp) {
				return false
			}
		}
		return true
	})
}
