package live

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os/exec"
	"strings"
	"sync"

	gitpkg "github.com/strata-fleet/strata/internal/git"
)

// History is what the repository's Git history says about rendered/: the
// commit that last changed each file (one git log for the whole tree), the
// files that differ from HEAD (not committed yet), and the ancestry between
// commits, asked once per pair and remembered.
type History struct {
	dir string
	// root is the rendered tree's directory (fleet.Config.OutputRoot).
	root string
	// Head is the commit HEAD is at ("" in a repository without commits).
	Head string
	// last maps a file (slash path relative to the fleet repository) to the
	// commit that last changed it; dirty holds the files that differ from
	// HEAD or are not tracked.
	last  map[string]string
	dirty map[string]bool
	// base is the history Advance made this one from, where a file last
	// does not hold is looked up; advances counts them.
	base     *History
	advances int

	mu  sync.Mutex
	anc map[[2]string]ancestry
	// reach caches, per revision, the commits it contains, once a
	// revision is asked about many commits.
	reach map[string]map[string]bool
	asked map[string]int

	// Fetch, when set, brings into the local repository a revision it
	// lacks (a commit someone pushed after this run's fetch, which Argo CD
	// synced): Contains then asks again, fetching once per revision.
	Fetch   func(rev string) error
	fetched map[string]bool
}

type ancestry struct {
	yes bool
	err error
}

// ReadHistory reads the history of the rendered tree root (the fleet's
// fleet.Config.OutputRoot, rendered/ by default) in the fleet repository
// dir (which may be a directory inside the Git repository).
func ReadHistory(dir, root string) (*History, error) {
	h := &History{dir: dir, root: root, last: map[string]string{}, dirty: map[string]bool{},
		anc: map[[2]string]ancestry{}, reach: map[string]map[string]bool{}, asked: map[string]int{}}
	if _, err := git(dir, "rev-parse", "--show-toplevel"); err != nil {
		return nil, fmt.Errorf("%s is not in a Git repository (live state compares Argo CD's revisions with its history): %w", dir, err)
	}
	head, err := git(dir, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		// No commit yet: everything is uncommitted.
		return h, h.readUntracked(true)
	}
	h.Head = strings.TrimSpace(head)
	out, err := git(dir, "log", "--relative", "--no-renames", "--name-only", "--format=%x00%H", "HEAD", "--", h.root)
	if err != nil {
		return nil, fmt.Errorf("reading the history of %s: %w", h.root, err)
	}
	commit := ""
	for line := range strings.SplitSeq(out, "\n") {
		switch {
		case strings.HasPrefix(line, "\x00"):
			commit = line[1:]
		case line == "":
		default:
			if _, seen := h.last[line]; !seen {
				h.last[line] = commit
			}
		}
	}
	changed, err := git(dir, "diff", "--relative", "--no-renames", "--name-only", "HEAD", "--", h.root)
	if err != nil {
		return nil, fmt.Errorf("comparing %s with HEAD: %w", h.root, err)
	}
	for line := range strings.SplitSeq(changed, "\n") {
		if line != "" {
			h.dirty[line] = true
		}
	}
	return h, h.readUntracked(false)
}

// Changed is a commit and the files under rendered/ it changed (slash
// paths relative to the fleet repository, as LastChange takes them).
type Changed struct {
	Commit string
	Files  []string
}

// Advance returns the history at head, a descendant of h.Head by the
// commits of changes (oldest first, head's last) alone: h's last changes
// with theirs, nothing uncommitted, and ancestry asked again. It is for
// the caller that made those commits from a clean work tree (a rollout's
// writer after its push), so that it need not read the history of every
// rendered file again: at 100,000 files that is seconds a push
// (BENCHMARKS.md, delivery). It keeps only what changes holds and looks
// the rest up in h, copying the whole map once every maxAdvances
// advances: a hundred pushes in flight each held a copy of 100,000 files.
func (h *History) Advance(head string, changes []Changed) *History {
	n := &History{dir: h.dir, root: h.root, Head: head, last: map[string]string{}, dirty: map[string]bool{},
		anc: map[[2]string]ancestry{}, reach: map[string]map[string]bool{}, asked: map[string]int{}, Fetch: h.Fetch,
		base: h, advances: h.advances + 1}
	if n.advances > maxAdvances {
		n.last, n.base, n.advances = h.flat(), nil, 0
	}
	for _, c := range changes {
		for _, f := range c.Files {
			n.last[f] = c.Commit
		}
	}
	return n
}

// maxAdvances is how many advances a history looks up through.
const maxAdvances = 16

// flat is h's last changes in one map.
func (h *History) flat() map[string]string {
	if h.base == nil {
		return maps.Clone(h.last)
	}
	out := h.base.flat()
	maps.Copy(out, h.last)
	return out
}

func (h *History) readUntracked(all bool) error {
	args := []string{"ls-files", "--others", "--exclude-standard", "--", h.root}
	if all {
		args = []string{"ls-files", "--cached", "--others", "--exclude-standard", "--", h.root}
	}
	out, err := git(h.dir, args...)
	if err != nil {
		return fmt.Errorf("listing the files of %s not committed: %w", h.root, err)
	}
	for line := range strings.SplitSeq(out, "\n") {
		if line != "" {
			h.dirty[line] = true
		}
	}
	return nil
}

// LastChange returns the commit that last changed file (a slash path
// relative to the fleet repository), "" for a file never committed, and
// whether the file differs from HEAD.
func (h *History) LastChange(file string) (commit string, uncommitted bool) {
	for x := h; x != nil; x = x.base {
		if c, ok := x.last[file]; ok {
			return c, h.dirty[file]
		}
	}
	return "", h.dirty[file]
}

// manyCommits is how many commits one revision is asked about before
// Contains lists all the commits it contains, once, instead.
const manyCommits = 16

// Contains reports whether revision rev contains commit (is it, or a
// descendant of it). An error says that rev is not a commit of the local
// repository (not fetched yet, or not a Git revision).
func (h *History) Contains(commit, rev string) (bool, error) {
	if commit == rev {
		return true, nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	key := [2]string{commit, rev}
	if a, ok := h.anc[key]; ok {
		return a.yes, a.err
	}
	if set := h.reach[rev]; set != nil {
		return set[commit], nil
	}
	h.asked[rev]++
	if h.asked[rev] > manyCommits {
		if set, err := h.revList(rev); err == nil {
			h.reach[rev] = set
			return set[commit], nil
		}
	}
	a := h.isAncestor(commit, rev)
	if a.err != nil && h.Fetch != nil && !h.fetched[rev] {
		if h.fetched == nil {
			h.fetched = map[string]bool{}
		}
		h.fetched[rev] = true
		if err := h.Fetch(rev); err == nil {
			a = h.isAncestor(commit, rev)
		}
	}
	h.anc[key] = a
	return a.yes, a.err
}

func (h *History) isAncestor(commit, rev string) ancestry {
	if strings.HasPrefix(rev, "-") || strings.HasPrefix(commit, "-") {
		return ancestry{err: fmt.Errorf("%q is not a revision", rev)}
	}
	cmd := exec.Command("git", "-C", h.dir, "merge-base", "--is-ancestor", commit, rev)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return ancestry{yes: true}
	case errors.As(err, &ee) && ee.ExitCode() == 1:
		return ancestry{}
	}
	return ancestry{err: fmt.Errorf("revision %.12s is not in the local repository (git fetch?)", rev)}
}

func (h *History) revList(rev string) (map[string]bool, error) {
	out, err := git(h.dir, "rev-list", "--end-of-options", rev)
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for line := range strings.SplitSeq(out, "\n") {
		if line != "" {
			set[line] = true
		}
	}
	return set, nil
}

// git runs git in dir and returns its standard output.
func git(dir string, args ...string) (string, error) { return gitpkg.Output(dir, nil, args...) }
