package scaffold

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

//go:embed fleet
var files embed.FS

// Write copies the scaffold into dir, creating dir if needed. It refuses to
// write into a directory that already holds a config/ directory, and writes
// nothing in that case.
func Write(dir string) ([]string, error) {
	if _, err := os.Stat(filepath.Join(dir, "config")); err == nil {
		return nil, fmt.Errorf("%s already has a config/ directory; strata init only starts new repositories", dir)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	var written []string
	err := fs.WalkDir(files, "fleet", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(p, "fleet/")
		rel = strings.TrimSuffix(rel, ".tmpl")
		dst := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return err
		}
		written = append(written, rel)
		return nil
	})
	return written, err
}
