package rootfs

// Git's data: the directories where git keeps a clone's objects, refs,
// hooks and config (which can hold credentials). No input strata reads is
// ever one of their files, so FS refuses to read there, whether a path
// names them or a symbolic link inside the repository leads there.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// ErrGitData is what a *GitDataError matches with errors.Is.
var ErrGitData = errors.New("git's data")

// GitDataError reports a read that FS refused because it reaches git's
// data. It comes wrapped in an *fs.PathError naming the path read.
type GitDataError struct {
	// GitDir is git's data directory reached, relative to the repository.
	GitDir string
	// Link is the symbolic link that leads there, and Target what it
	// points to; both empty when the path itself names git's data.
	Link, Target string
}

func (e *GitDataError) Error() string {
	const why = "where git keeps the clone's data (its config can hold credentials): strata reads no input there"
	if e.Link == "" {
		return fmt.Sprintf("inside %s, %s", e.GitDir, why)
	}
	return fmt.Sprintf("symbolic link %s -> %s leads into %s, %s", e.Link, e.Target, e.GitDir, why)
}

// Is makes errors.Is(err, ErrGitData) true.
func (e *GitDataError) Is(target error) bool { return target == ErrGitData }

// maxLinks bounds the symbolic links followed in one path, as Linux does.
const maxLinks = 40

// gitDirs finds git's data directories inside the repository at root that
// are not named .git (every directory of that name is refused anyway):
// the target of a .git file (a worktree or a clone made with
// --separate-git-dir) and its common directory, $GIT_DIR and
// $GIT_COMMON_DIR, when they are inside the repository. They are slash
// paths relative to it.
func gitDirs(root *os.Root) []string {
	top, err := filepath.Abs(root.Name())
	if err != nil {
		return nil
	}
	if resolved, err := filepath.EvalSymlinks(top); err == nil {
		top = resolved
	}
	var out []string
	add := func(dir string) string { // dir: absolute, or relative to the repository
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(top, dir)
		}
		if resolved, err := filepath.EvalSymlinks(dir); err == nil {
			dir = resolved
		}
		rel, err := filepath.Rel(top, dir)
		if err != nil || !filepath.IsLocal(rel) {
			return ""
		}
		out = append(out, filepath.ToSlash(rel))
		return dir
	}
	for _, env := range []string{"GIT_DIR", "GIT_COMMON_DIR"} {
		if d := os.Getenv(env); d != "" {
			if abs, err := filepath.Abs(d); err == nil { // git reads it from the working directory
				add(abs)
			}
		}
	}
	if data, err := root.ReadFile(".git"); err == nil {
		if d, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:"); ok {
			if abs := add(strings.TrimSpace(d)); abs != "" {
				if common, err := os.ReadFile(filepath.Join(abs, "commondir")); err == nil {
					c := strings.TrimSpace(string(common))
					if !filepath.IsAbs(c) {
						c = filepath.Join(abs, c)
					}
					add(c)
				}
			}
		}
	}
	return out
}

// gitDir returns the directory of git's data that the slash path p (as
// resolved: no link in it) is, or is in; "" if none.
func (f *FS) gitDir(p string) string {
	for i := 0; i < len(p); {
		j := strings.IndexByte(p[i:], '/')
		if j < 0 {
			j = len(p) - i
		}
		if strings.EqualFold(p[i:i+j], ".git") {
			return p[:i+j]
		}
		i += j + 1
	}
	for _, d := range f.gitDirs {
		if p == d || strings.HasPrefix(p, d+"/") {
			return d
		}
	}
	return ""
}

// check refuses name, for operation op, if it names git's data or its
// symbolic links lead there; with lstat, a final link is not followed.
// Anything else (a path that does not exist, leaves the repository or
// loops) is left for os.Root to answer.
func (f *FS) check(op, name string, lstat bool) error {
	if !fs.ValidPath(name) {
		return nil
	}
	if g := f.gitDir(name); g != "" && !(lstat && g == name) {
		return &fs.PathError{Op: op, Path: name, Err: &GitDataError{GitDir: g}}
	}
	if _, err := f.resolve(name, lstat); err != nil {
		return &fs.PathError{Op: op, Path: name, Err: err}
	}
	return nil
}

// resolve follows the symbolic links of name inside the repository, as
// the kernel does (".." after a link is the parent of where it led), and
// returns the path reached, or a *GitDataError if it, or a directory on
// the way, is git's data. It returns "" with no error when os.Root would
// refuse name or find nothing.
func (f *FS) resolve(name string, lstat bool) (string, error) {
	var link, target string // the last link followed
	resolved := "."
	rest := strings.Split(name, "/")
	for hops := 0; len(rest) > 0; {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case ".", "":
			continue
		case "..":
			if resolved == "." {
				return "", nil
			}
			resolved = path.Dir(resolved)
			continue
		}
		p := path.Join(resolved, c)
		if g := f.gitDir(p); g != "" && !(lstat && len(rest) == 0 && link == "") {
			return "", &GitDataError{GitDir: g, Link: link, Target: target}
		}
		info, err := f.root.Lstat(p)
		if err != nil {
			return "", nil
		}
		if info.Mode()&fs.ModeSymlink == 0 || (lstat && len(rest) == 0) {
			resolved = p
			continue
		}
		if hops++; hops > maxLinks {
			return "", nil
		}
		t, err := f.root.Readlink(p)
		if err != nil || path.IsAbs(t) {
			return "", nil
		}
		link, target = p, t
		rest = append(strings.Split(t, "/"), rest...)
	}
	return resolved, nil
}
