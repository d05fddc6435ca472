package testfleet

import (
	"embed"
	"io/fs"
	"os"
	"path/filepath"
)

//go:embed all:fleet
var files embed.FS

// FS returns the fleet repository, rooted at the repository.
func FS() fs.FS {
	sub, err := fs.Sub(files, "fleet")
	if err != nil {
		panic(err)
	}
	return sub
}

// Write copies the fleet repository into dir.
func Write(dir string) error {
	return fs.WalkDir(FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := fs.ReadFile(FS(), p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
}
