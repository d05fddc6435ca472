package output

import (
	"io/fs"
	"path"

	"github.com/strata-fleet/strata/internal/treestamp"
)

// stampsCurrent reports, without listing any directory, whether the target
// directory dir (which the caller checked is a directory, reached through
// directories) holds exactly what ts recorded: each recorded directory,
// parents first, is a directory with its recorded stamp, then each
// recorded file is a regular file with its own, looked up by name
// relative to the target's directory (treestamp.Dir: one fstatat each, on
// Linux; elsewhere false, and the target is listed). While a directory's
// stamp is unchanged it holds the same entries (package treestamp says
// why); a change within the clock tick of the recording could keep a
// stamp: the state holds no such stamp (racy.go).
func stampsCurrent(t *tree, dir string, ts TargetState) bool {
	if len(ts.Dirs) == 0 || ts.Dirs[0].Name != "." {
		return false // a state without directories: list them
	}
	parent, err := t.sub(path.Dir(dir))
	if err != nil {
		return false
	}
	f, err := parent.Open(path.Base(dir))
	if err != nil {
		return false
	}
	defer f.Close()
	return treestamp.Look(f, func(d treestamp.Dir) bool {
		for _, s := range ts.Dirs {
			if !d.Has(s.Name, fs.ModeDir, s) {
				return false
			}
		}
		for _, s := range ts.Files {
			if !d.Has(s.Name, 0, s) {
				return false
			}
		}
		return true
	})
}
