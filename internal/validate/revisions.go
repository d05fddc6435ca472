package validate

import (
	"fmt"
	"io/fs"
	"strings"
	"sync"

	"github.com/strata-fleet/strata/internal/diff"
)

// revTree is the repository as one revision holds it in the Git clone,
// read once for every source at that revision.
type revTree struct {
	once sync.Once
	fsys fs.FS
	err  error
}

// revisionOf returns the revision at which the source s of the repository
// is checked: its targetRevision when that is a revision other than the
// one the working tree stands for (config.yaml's repository.revision, or
// HEAD), else "" (the working tree, rendered/ as just rendered). A
// targetRevision with template expressions left for Argo CD cannot be told
// and is checked in the working tree too.
func (c *sourceChecker) revisionOf(s appSource) string {
	rev := strings.TrimSpace(helmUnescape(s.str("targetRevision")))
	if c.dir == "" || rev == "" || rev == "HEAD" || rev == c.branch || templateRE.MatchString(rev) {
		return ""
	}
	return rev
}

// treeAt returns the repository at rev ("" for the working tree), or nil
// and the finding that says why it cannot be read. A revision Git does not
// have under its name is looked for as the branch of the remote origin,
// as Argo CD, which clones the remote, would find it.
func (c *sourceChecker) treeAt(rev string) (fs.FS, sourceResult) {
	if rev == "" {
		return c.fsys, sourceResult{}
	}
	c.mu.Lock()
	t := c.revs[rev]
	if t == nil {
		t = &revTree{}
		c.revs[rev] = t
	}
	c.mu.Unlock()
	t.once.Do(func() { t.fsys, t.err = c.readRevision(rev) })
	if t.err != nil {
		return nil, sourceResult{Warning, fmt.Sprintf("targetRevision %s is not a revision of this clone, so this source is not checked at it: %s (git fetch it, or correct the revision)", rev, oneLine(t.err))}
	}
	return t.fsys, sourceResult{}
}

// readRevision reads the repository's whole tree at rev, or at the branch
// origin/rev.
func (c *sourceChecker) readRevision(rev string) (fs.FS, error) {
	if strings.Contains(rev, "..") || strings.HasPrefix(rev, "-") {
		return nil, fmt.Errorf("%q is not a revision", rev)
	}
	if _, err := diff.Commit(c.dir, rev); err != nil {
		if _, oerr := diff.Commit(c.dir, "origin/"+rev); oerr != nil {
			return nil, fmt.Errorf("no commit, branch or tag %s", rev)
		}
		rev = "origin/" + rev
	}
	r, err := diff.ReadRevisionTree(c.dir, rev)
	if err != nil {
		return nil, err
	}
	return r.FS, nil
}
