package main

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// Owner is a numeric user and group.
type Owner struct{ UID, GID int }

// LayerSpec says how a directory becomes a layer.
type LayerSpec struct {
	// Dir is the directory whose contents are the layer; its own entry is
	// left out (a layer's paths are relative: "usr/bin/git").
	Dir string
	// ModTime is every entry's modification time.
	ModTime time.Time
	// Owners gives the owner of the entries at and under a path
	// ("home/strata"); every other entry is owned by root (0:0).
	Owners map[string]Owner
}

// Layer is a written layer: the gzip blob's digest and size, and the
// digest of the uncompressed tar (the config's diff_id).
type Layer struct {
	Digest string
	Size   int64
	DiffID string
}

// WriteLayer writes the layer of spec, a gzip-compressed tar, to w. The
// bytes depend only on the tree's names, contents, modes and links: entries
// in byte order of their paths, one modification time, numeric owners
// (root unless spec.Owners says otherwise), no user or group names, no
// access or change times; a file with several links is stored once, its
// other names as hard links to the first in that order. Set-user-ID and
// set-group-ID bits are refused: the image runs as a user that needs none.
func WriteLayer(w io.Writer, spec LayerSpec) (Layer, error) {
	paths, err := walk(spec.Dir)
	if err != nil {
		return Layer{}, err
	}
	blob := sha256.New()
	counted := &countWriter{w: io.MultiWriter(w, blob)}
	zw, err := gzip.NewWriterLevel(counted, gzip.DefaultCompression)
	if err != nil {
		return Layer{}, err
	}
	diff := sha256.New()
	tw := tar.NewWriter(io.MultiWriter(zw, diff))
	links := map[[2]uint64]string{} // device, inode -> first path
	for _, rel := range paths {
		if err := writeEntry(tw, spec, rel, links); err != nil {
			return Layer{}, err
		}
	}
	if err := tw.Close(); err != nil {
		return Layer{}, err
	}
	if err := zw.Close(); err != nil {
		return Layer{}, err
	}
	return Layer{Digest: digestOf(blob), Size: counted.n, DiffID: digestOf(diff)}, nil
}

// walk returns the slash-separated paths under dir, sorted bytewise.
func walk(dir string) ([]string, error) {
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		paths = append(paths, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the layer's tree %s: %w", dir, err)
	}
	sort.Strings(paths)
	return paths, nil
}

func writeEntry(tw *tar.Writer, spec LayerSpec, rel string, links map[[2]uint64]string) error {
	full := filepath.Join(spec.Dir, filepath.FromSlash(rel))
	info, err := os.Lstat(full)
	if err != nil {
		return err
	}
	mode := info.Mode()
	if mode&(fs.ModeSetuid|fs.ModeSetgid) != 0 {
		return fmt.Errorf("%s: set-user-ID or set-group-ID bit (%s): the image has no such file", full, mode)
	}
	owner := ownerOf(spec.Owners, rel)
	h := &tar.Header{
		Name:    rel,
		Mode:    int64(mode.Perm()),
		Uid:     owner.UID,
		Gid:     owner.GID,
		ModTime: spec.ModTime,
	}
	if mode&fs.ModeSticky != 0 {
		h.Mode |= 0o1000 // tar's sticky bit (/tmp)
	}
	switch {
	case mode.IsDir():
		h.Typeflag, h.Name = tar.TypeDir, rel+"/"
		return tw.WriteHeader(h)
	case mode&fs.ModeSymlink != 0:
		target, err := os.Readlink(full)
		if err != nil {
			return err
		}
		h.Typeflag, h.Linkname = tar.TypeSymlink, target
		return tw.WriteHeader(h)
	case mode.IsRegular():
	default:
		return fmt.Errorf("%s: %s is neither a file, a directory nor a symbolic link", full, mode.Type())
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok && st.Nlink > 1 {
		key := [2]uint64{uint64(st.Dev), st.Ino}
		if first, seen := links[key]; seen {
			h.Typeflag, h.Linkname = tar.TypeLink, first
			return tw.WriteHeader(h)
		}
		links[key] = rel
	}
	h.Typeflag, h.Size = tar.TypeReg, info.Size()
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	f, err := os.Open(full)
	if err != nil {
		return err
	}
	defer f.Close()
	if n, err := io.Copy(tw, f); err != nil {
		return fmt.Errorf("%s: %w", full, err)
	} else if n != info.Size() {
		return fmt.Errorf("%s: changed while it was read (%d bytes, then %d)", full, info.Size(), n)
	}
	return nil
}

// ownerOf returns the owner the longest matching prefix of owners gives
// rel, or root.
func ownerOf(owners map[string]Owner, rel string) Owner {
	best, found := "", Owner{}
	for p, o := range owners {
		if (rel == p || strings.HasPrefix(rel, p+"/")) && len(p) >= len(best) {
			best, found = p, o
		}
	}
	return found
}

func digestOf(h hash.Hash) string { return "sha256:" + hex.EncodeToString(h.Sum(nil)) }

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
