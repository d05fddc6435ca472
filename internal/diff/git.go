package diff

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing/fstest"

	"github.com/strata-fleet/strata/internal/fleet"
	gitpkg "github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/memfs"
	"github.com/strata-fleet/strata/internal/render"
)

// Revision is the fleet repository as a Git revision holds it.
type Revision struct {
	// Rev is the revision as given; Commit the commit it resolved to.
	Rev    string
	Commit string
	// FS holds the revision's config/ and argocd-apps/, rooted at the
	// fleet repository (which may be a directory inside the Git
	// repository).
	FS fs.FS
	// Empty is true when the revision has no config/config.yaml there.
	Empty bool
}

// ReadRevision reads the fleet repository in dir as revision rev holds it:
// config/ and argocd-apps/. "A...B" names the merge base of A and B, as in
// git diff. Only Git's object store is read.
func ReadRevision(dir, rev string) (*Revision, error) {
	return readRevision(dir, rev, false, false)
}

// ReadRevisionAll is ReadRevision with every file of the fleet repository
// but rendered/: the sources (charts, overlays) that --hydrate builds.
func ReadRevisionAll(dir, rev string) (*Revision, error) {
	return readRevision(dir, rev, true, false)
}

// ReadRevisionTree is ReadRevision with every file of the fleet
// repository, the rendered tree included: what Argo CD reads at rev
// (validate checks a source at its targetRevision in it).
func ReadRevisionTree(dir, rev string) (*Revision, error) {
	return readRevision(dir, rev, true, true)
}

func readRevision(dir, rev string, all, rendered bool) (*Revision, error) {
	top, err := git(dir, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("%s is not in a Git repository (strata diff compares with a Git revision): %w", dir, err)
	}
	top = strings.TrimSpace(top)
	prefix, err := git(dir, nil, "rev-parse", "--show-prefix")
	if err != nil {
		return nil, err
	}
	prefix = strings.TrimSpace(prefix)
	commit, err := resolve(top, rev)
	if err != nil {
		return nil, err
	}
	paths := []string{prefix + "config", prefix + "argocd-apps"}
	if all {
		paths = []string{or(prefix, ".")}
	}
	type entry struct{ mode, oid, path string }
	var entries []entry
	listTree := func(paths []string, keep func(string) bool) error {
		list, err := git(top, nil, append([]string{"ls-tree", "-r", "-z", "--full-tree", commit, "--"}, paths...)...)
		if err != nil {
			return fmt.Errorf("listing %s: %w", rev, err)
		}
		for _, rec := range strings.Split(list, "\x00") {
			meta, p, ok := strings.Cut(rec, "\t")
			if !ok {
				continue
			}
			fields := strings.Fields(meta)
			if len(fields) != 3 || fields[1] != "blob" {
				continue // submodules
			}
			p = strings.TrimPrefix(p, prefix)
			if keep(p) {
				entries = append(entries, entry{mode: fields[0], oid: fields[2], path: p})
			}
		}
		return nil
	}
	if err := listTree(paths, func(string) bool { return true }); err != nil {
		return nil, err
	}
	configOf := func() *fleet.Config { // config.yaml at rev, nil when unreadable
		i := slices.IndexFunc(entries, func(e entry) bool { return e.path == fleet.ConfigPath })
		if i < 0 {
			return nil
		}
		blobs, err := catFiles(top, []string{entries[i].oid})
		if err != nil {
			return nil
		}
		cfg, _ := fleet.ReadConfig(fstest.MapFS{fleet.ConfigPath: {Data: blobs[0]}}, nil)
		return cfg
	}
	if cfg := configOf(); !all && cfg != nil && len(cfg.Charts) > 0 {
		// The Chart.yaml of each chart config.yaml's charts: finds, which
		// make its components.
		dirs := map[string]bool{}
		var chartPaths []string
		for _, d := range cfg.ChartDirs() {
			dirs[d] = true
			chartPaths = append(chartPaths, prefix+d)
		}
		err := listTree(chartPaths, func(p string) bool {
			dir, name := path.Split(p)
			dir, _ = strings.CutSuffix(dir, "/")
			return name == "Chart.yaml" && dirs[path.Dir(dir)]
		})
		if err != nil {
			return nil, err
		}
	}
	if all && !rendered { // but the rendered tree, where config.yaml's layout puts it
		root := render.OutputDir
		if cfg := configOf(); cfg != nil {
			root = cfg.OutputRoot()
		}
		entries = slices.DeleteFunc(entries, func(e entry) bool { return strings.HasPrefix(e.path, root+"/") })
	}
	m := fstest.MapFS{}
	var oids []string
	for _, e := range entries {
		oids = append(oids, e.oid)
	}
	blobs, err := catFiles(top, oids)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", rev, err)
	}
	for i, e := range entries {
		f := &fstest.MapFile{Data: blobs[i], Mode: 0o644}
		if e.mode == "120000" {
			f.Mode = fs.ModeSymlink | 0o777
		}
		m[e.path] = f
	}
	_, hasConfig := m["config/config.yaml"]
	return &Revision{Rev: rev, Commit: commit, FS: memfs.Index(m), Empty: !hasConfig}, nil
}

// Commit resolves rev (or "A...B") in the Git repository that holds dir to
// a commit hash.
func Commit(dir, rev string) (string, error) {
	top, err := git(dir, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", fmt.Errorf("%s is not in a Git repository (strata diff compares with a Git revision): %w", dir, err)
	}
	return resolve(strings.TrimSpace(top), rev)
}

// resolve turns rev into a commit hash; "A...B" is the merge base of A
// and B.
func resolve(top, rev string) (string, error) {
	if a, b, ok := strings.Cut(rev, "..."); ok {
		a, b = or(a, "HEAD"), or(b, "HEAD")
		// Each side resolves to a commit hash first, and the hashes follow
		// --end-of-options: user text never reaches git as an option.
		ca, err := resolve(top, a)
		var cb, base string
		if err == nil {
			cb, err = resolve(top, b)
		}
		if err == nil {
			base, err = git(top, nil, "merge-base", "--end-of-options", ca, cb)
		}
		if err != nil {
			return "", fmt.Errorf("--base %s: no merge base of %s and %s: %w", rev, a, b, err)
		}
		return strings.TrimSpace(base), nil
	}
	if strings.HasPrefix(rev, "-") {
		return "", fmt.Errorf("--base %s: not a revision", rev)
	}
	out, err := git(top, nil, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		if rev == "HEAD" {
			return "", fmt.Errorf("--base HEAD: the repository has no commit yet (commit the fleet first, or name another --base)")
		}
		return "", fmt.Errorf("--base %s: unknown revision (a commit, branch or tag of the repository)", rev)
	}
	return strings.TrimSpace(out), nil
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// git runs git in dir and returns its standard output.
func git(dir string, stdin io.Reader, args ...string) (string, error) {
	return gitpkg.Output(dir, stdin, args...)
}

// catFiles reads blobs with one git cat-file --batch.
func catFiles(dir string, oids []string) ([][]byte, error) {
	if len(oids) == 0 {
		return nil, nil
	}
	cmd := exec.Command("git", "-C", dir, "cat-file", "--batch")
	cmd.Stdin = strings.NewReader(strings.Join(oids, "\n") + "\n")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("running git: %w", err)
	}
	r := bufio.NewReader(stdout)
	out := make([][]byte, len(oids))
	var readErr error
	for i := range oids {
		header, err := r.ReadString('\n')
		if err != nil {
			readErr = err
			break
		}
		fields := strings.Fields(header)
		if len(fields) != 3 {
			readErr = fmt.Errorf("git cat-file: %s", strings.TrimSpace(header))
			break
		}
		size, err := strconv.Atoi(fields[2])
		if err != nil {
			readErr = err
			break
		}
		data := make([]byte, size+1) // the content and a newline
		if _, err := io.ReadFull(r, data); err != nil {
			readErr = err
			break
		}
		out[i] = data[:size]
	}
	if readErr != nil {
		_, _ = io.Copy(io.Discard, r)
	}
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("git cat-file: %w: %s", err, strings.TrimSpace(errb.String()))
	}
	return out, readErr
}

// Trailers returns the values of the trailer key ("Approved-by") in the
// messages of the commits reachable from HEAD and not from base, in the
// Git repository that holds dir.
func Trailers(dir, base, key string) ([]string, error) {
	out, err := git(dir, nil, "log", "--format=%(trailers:key="+key+",valueonly,separator=%x00)%x00", base+"..HEAD")
	if err != nil {
		return nil, fmt.Errorf("reading the commits since %s: %w", short(base), err)
	}
	var vals []string
	for _, v := range strings.Split(out, "\x00") {
		if v = strings.TrimSpace(v); v != "" {
			vals = append(vals, v)
		}
	}
	return vals, nil
}
