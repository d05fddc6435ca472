package localstate

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
)

// Dir returns the directory of the local state of the repository at root.
// It does not create it.
func Dir(root string) (string, error) {
	base := os.Getenv("STRATA_CACHE_DIR")
	if base == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			c = os.TempDir()
		}
		base = filepath.Join(c, "strata")
	}
	key, err := Key(root)
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "repos", key), nil
}

// Key identifies the checkout at root: a digest of its absolute path with
// symbolic links resolved.
func Key(root string) (string, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	if resolved, err := filepath.EvalSymlinks(abs); err == nil {
		abs = resolved
	}
	sum := sha256.Sum256([]byte(abs))
	return hex.EncodeToString(sum[:12]), nil
}

// Path returns the file name in the local state of the repository at root.
func Path(root, name string) (string, error) {
	dir, err := Dir(root)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, name), nil
}
