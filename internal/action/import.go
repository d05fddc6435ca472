package action

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/strata-fleet/strata/internal/importer"
	"github.com/strata-fleet/strata/internal/values"
)

// Import is strata import: a repository read in one of importer's formats,
// made a strata fleet, verified, and its config/ written into Into.
type Import struct {
	Format string
	// Source is the directory to import; the file system the format reads
	// is rooted at the Git repository holding it (kustomizations reach
	// bases outside it), else at Source.
	Source string
	// Into is the directory the fleet's config/ is written into; it may
	// be Source's repository itself.
	Into        string
	ClusterType string
	Dimensions  []string
	// ClusterSecrets are files of cluster Secret manifests the format
	// reads beside the repository (eks-fleet's hub Secret).
	ClusterSecrets []string
}

// Imported is what Import did.
type Imported struct {
	*importer.Result
	// Written lists the files written, relative to Into, sorted.
	Written []string
}

// Run reads, builds and verifies the fleet (importer.Verify: strata render
// and Argo CD's render of its output give the source's objects), then
// writes config/ whole: staged in a directory beside it and renamed into
// place, so that an error at any point leaves Into as it was. Into must
// not hold a config/ already.
func (im Import) Run() (*Imported, error) {
	format, err := importer.Lookup(im.Format)
	if err != nil {
		return nil, err
	}
	root, dir, err := sourceRoot(im.Source)
	if err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	ct := im.ClusterType
	if ct == "" {
		ct = importer.ClusterTypeFor(filepath.ToSlash(filepath.Join(root, dir)))
	}
	show := shownFrom(root)
	if len(im.ClusterSecrets) > 0 && im.Format != "eks-fleet" {
		return nil, usageErrorf("--cluster-secret: only the eks-fleet format reads cluster Secrets, not %s", im.Format)
	}
	var secrets []importer.SecretFile
	for _, f := range im.ClusterSecrets {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("--cluster-secret: %w", err)
		}
		secrets = append(secrets, importer.SecretFile{File: f, Data: data})
	}
	src, err := format.Read(r.FS(), importer.Options{Dir: dir, ClusterType: ct, Dimensions: im.Dimensions, ClusterSecrets: secrets, Show: show.at})
	if err != nil {
		return nil, show.err(err)
	}
	// The layout is the source's paths, from the fleet's root.
	if into, err := filepath.Abs(im.Into); err == nil {
		src.RebaseLayout(func(p string) string { return fromInto(into, root, p) })
	}
	res, err := importer.Build(im.Format, src)
	if err != nil {
		return nil, show.err(err)
	}
	for i := range res.Findings {
		res.Findings[i].At = show.at(res.Findings[i].At)
	}
	if err := importer.Verify(res); err != nil {
		return nil, err
	}
	config := filepath.Join(im.Into, "config")
	if _, err := os.Lstat(config); err == nil {
		return nil, fmt.Errorf("%s exists: strata import writes a new fleet's config/; import into another directory, or move it away first", config)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err := os.MkdirAll(im.Into, 0o755); err != nil {
		return nil, err
	}
	written, err := writeStaged(im.Into, res.Files)
	if err != nil {
		return nil, err
	}
	return &Imported{Result: res, Written: written}, nil
}

// fromInto returns p, a slash path relative to root, relative to into
// instead, when one of them holds the other; else p.
func fromInto(into, root, p string) string {
	rel, err := filepath.Rel(into, filepath.Join(root, filepath.FromSlash(p)))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return p
	}
	return filepath.ToSlash(rel)
}

// sourceRoot returns the root of the Git repository holding dir (or dir
// itself outside one) and dir relative to it, slash-separated.
func sourceRoot(dir string) (root, rel string, err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", "", err
	}
	info, err := os.Stat(abs)
	if err != nil {
		return "", "", err
	}
	if !info.IsDir() {
		return "", "", fmt.Errorf("%s is not a directory", dir)
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			rel, err := filepath.Rel(d, abs)
			return d, filepath.ToSlash(rel), err
		}
		if filepath.Dir(d) == d {
			return abs, ".", nil
		}
	}
}

// shown turns a path of the file system a format reads (relative to the
// repository's root) into the path the user sees: relative to the
// working directory.
type shown string

func shownFrom(root string) shown {
	wd, err := os.Getwd()
	if err != nil {
		return shown(root)
	}
	rel, err := filepath.Rel(wd, root)
	if err != nil {
		return shown(root)
	}
	return shown(filepath.ToSlash(rel))
}

func (s shown) path(p string) string {
	if p == "" || s == "." {
		return p
	}
	return path.Join(string(s), p)
}

// at shows "file:line".
func (s shown) at(at string) string {
	if i := strings.LastIndexByte(at, ':'); i >= 0 {
		return s.path(at[:i]) + at[i:]
	}
	return s.path(at)
}

// err shows the positions of a data error.
func (s shown) err(err error) error {
	ve, ok := err.(*values.Error) //nolint:errorlint // only a data error itself is re-shown; one wrapped in context keeps its text
	if !ok {
		return err
	}
	c := *ve
	c.Pos.File = s.path(c.Pos.File)
	c.Also = nil
	for _, p := range ve.Also {
		p.File = s.path(p.File)
		c.Also = append(c.Also, p)
	}
	return &c
}

// writeStaged writes files (paths under config/) into a directory made
// beside dir's config/, then renames its config/ into place.
func writeStaged(dir string, files map[string][]byte) (written []string, err error) {
	stage, err := os.MkdirTemp(dir, ".strata-import-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(stage)
	for name, data := range files {
		p := filepath.Join(stage, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := writeSynced(p, data); err != nil {
			return nil, err
		}
		written = append(written, name)
	}
	if err := os.Rename(filepath.Join(stage, "config"), filepath.Join(dir, "config")); err != nil {
		return nil, err
	}
	slices.Sort(written)
	return written, nil
}

func writeSynced(p string, data []byte) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
