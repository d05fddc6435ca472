package scaffold

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/strata-fleet/strata/internal/atomicfile"
)

//go:embed all:fleet
var files embed.FS

// placeholderURL is the repository URL the scaffold's config.yaml holds
// until the user names theirs.
const placeholderURL = "https://git.example.com/platform/fleet.git"

// Options adjust the scaffold.
type Options struct {
	// RepoURL is where Argo CD pulls the repository from (config.yaml's
	// repository.url); "" keeps a placeholder to replace.
	RepoURL string
}

// Write copies the scaffold into dir, creating dir if needed, and returns
// the files written (slash paths). It refuses to
// write into a directory that already holds config/ (a directory, a file or
// a symbolic link), and writes nothing in that case. Every file is written
// through an os.Root on dir with package atomicfile: nothing is written
// outside dir or through a symbolic link found there.
func Write(dir string, opts Options) ([]string, error) {
	if strings.ContainsAny(opts.RepoURL, "\n\r\"") {
		return nil, fmt.Errorf("--repo-url %q: not a URL", opts.RepoURL)
	}
	if err := os.MkdirAll(dir, atomicfile.DirMode); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	if info, err := root.Lstat("config"); err == nil {
		if info.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s is a symbolic link: strata init writes a new repository only, never through links", filepath.Join(dir, "config"))
		}
		return nil, fmt.Errorf("%s already has a config/ directory; strata init only starts new repositories", dir)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	var written []string
	err = fs.WalkDir(files, "fleet", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		rel := strings.TrimSuffix(strings.TrimPrefix(p, "fleet/"), ".tmpl")
		if rel == "config/config.yaml" && opts.RepoURL != "" {
			data = []byte(strings.Replace(string(data), placeholderURL, opts.RepoURL, 1))
		}
		if err := atomicfile.WriteFile(root, rel, data); err != nil {
			return err
		}
		written = append(written, rel)
		return nil
	})
	return written, err
}
