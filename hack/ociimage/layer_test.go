package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var epoch = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

// tree writes a small root file system into a new directory: files, a
// directory owned by the user, a symbolic link, a file with two names, a
// sticky directory.
func tree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range map[string]string{
		"usr/bin/git":       "git",
		"etc/passwd":        "root:x:0:0::/root:/sbin/nologin\n",
		"home/strata/.keep": "",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	must(t, os.Chmod(filepath.Join(dir, "usr/bin/git"), 0o755))
	must(t, os.MkdirAll(filepath.Join(dir, "usr/lib/git-core"), 0o755))
	must(t, os.Link(filepath.Join(dir, "usr/bin/git"), filepath.Join(dir, "usr/lib/git-core/git-add")))
	must(t, os.Symlink("../../bin/git", filepath.Join(dir, "usr/lib/git-core/git")))
	must(t, os.Mkdir(filepath.Join(dir, "tmp"), 0o755))
	must(t, os.Chmod(filepath.Join(dir, "tmp"), 0o777|os.ModeSticky))
	return dir
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// entry is what a test compares of a tar header.
type entry struct {
	Name, Link string
	Type       byte
	Mode       int64
	UID, GID   int
	Size       int64
}

func readLayer(t *testing.T, blob []byte) []entry {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(blob))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var out []entry
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if !h.ModTime.Equal(epoch) || !h.AccessTime.IsZero() || !h.ChangeTime.IsZero() || h.Uname != "" || h.Gname != "" {
			t.Errorf("%s: times %v/%v/%v, names %q:%q; want only the modification time %v, no names",
				h.Name, h.ModTime, h.AccessTime, h.ChangeTime, h.Uname, h.Gname, epoch)
		}
		out = append(out, entry{h.Name, h.Linkname, h.Typeflag, h.Mode, h.Uid, h.Gid, h.Size})
	}
}

func TestWriteLayer(t *testing.T) {
	dir := tree(t)
	var b bytes.Buffer
	spec := LayerSpec{Dir: dir, ModTime: epoch, Owners: map[string]Owner{"home/strata": {65532, 65532}}}
	l, err := WriteLayer(&b, spec)
	if err != nil {
		t.Fatal(err)
	}
	want := []entry{
		{"etc/", "", tar.TypeDir, 0o755, 0, 0, 0},
		{"etc/passwd", "", tar.TypeReg, 0o644, 0, 0, 32},
		{"home/", "", tar.TypeDir, 0o755, 0, 0, 0},
		{"home/strata/", "", tar.TypeDir, 0o755, 65532, 65532, 0},
		{"home/strata/.keep", "", tar.TypeReg, 0o644, 65532, 65532, 0},
		{"tmp/", "", tar.TypeDir, 0o1777, 0, 0, 0},
		{"usr/", "", tar.TypeDir, 0o755, 0, 0, 0},
		{"usr/bin/", "", tar.TypeDir, 0o755, 0, 0, 0},
		{"usr/bin/git", "", tar.TypeReg, 0o755, 0, 0, 3},
		{"usr/lib/", "", tar.TypeDir, 0o755, 0, 0, 0},
		{"usr/lib/git-core/", "", tar.TypeDir, 0o755, 0, 0, 0},
		{"usr/lib/git-core/git", "../../bin/git", tar.TypeSymlink, 0o777, 0, 0, 0},
		{"usr/lib/git-core/git-add", "usr/bin/git", tar.TypeLink, 0o755, 0, 0, 0},
	}
	if diff := cmp.Diff(want, readLayer(t, b.Bytes())); diff != "" {
		t.Errorf("layer entries (-want +got):\n%s", diff)
	}
	sum := sha256.Sum256(b.Bytes())
	if got := "sha256:" + hex.EncodeToString(sum[:]); got != l.Digest || int64(b.Len()) != l.Size {
		t.Errorf("layer reported %s (%d bytes), wrote %s (%d bytes)", l.Digest, l.Size, got, b.Len())
	}
}

// TestWriteLayerIsReproducible: what a file system records beside a tree's
// contents (times, the order of a directory) does not reach the bytes.
func TestWriteLayerIsReproducible(t *testing.T) {
	a, b := tree(t), tree(t) // made at different times, in different inodes
	past := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	must(t, os.Chtimes(filepath.Join(b, "etc/passwd"), past, past))
	must(t, os.Chtimes(filepath.Join(b, "usr"), past, past))
	la, err := WriteLayer(io.Discard, LayerSpec{Dir: a, ModTime: epoch})
	must(t, err)
	lb, err := WriteLayer(io.Discard, LayerSpec{Dir: b, ModTime: epoch})
	must(t, err)
	if la != lb {
		t.Errorf("the same tree gave two layers:\n%+v\n%+v", la, lb)
	}
	must(t, os.WriteFile(filepath.Join(b, "etc/passwd"), []byte("root:x:0:0::/root:/sbin/nologin!"), 0o644))
	lc, err := WriteLayer(io.Discard, LayerSpec{Dir: b, ModTime: epoch})
	must(t, err)
	if lc.Digest == la.Digest || lc.DiffID == la.DiffID {
		t.Errorf("a changed file left the layer's digests as they were: %+v", lc)
	}
}

func TestWriteLayerRefuses(t *testing.T) {
	for name, prepare := range map[string]func(dir string) error{
		"set-user-ID": func(dir string) error { return os.Chmod(filepath.Join(dir, "usr/bin/git"), 0o755|os.ModeSetuid) },
		"fifo": func(dir string) error {
			return mkfifo(filepath.Join(dir, "tmp/fifo"))
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := tree(t)
			must(t, prepare(dir))
			_, err := WriteLayer(io.Discard, LayerSpec{Dir: dir, ModTime: epoch})
			if err == nil || !strings.Contains(err.Error(), dir) {
				t.Errorf("got error %v, want one naming the file under %s", err, dir)
			}
		})
	}
}

// TestBuild checks the layout: index.json names the manifest and the tag;
// every blob is stored under its digest with the size its descriptor
// gives; the config's diff_ids are the uncompressed layers' digests.
func TestBuild(t *testing.T) {
	img := Image{
		Layers:  []LayerSpec{{Dir: tree(t), ModTime: epoch}, {Dir: tree(t), ModTime: epoch}},
		Comment: []string{"base", "app"},
		Config:  ImageConfig{User: "65532:65532", Entrypoint: []string{"/usr/local/bin/strata"}},
		Created: epoch, Arch: "amd64", OS: "linux", RefName: "v0.1.0",
	}
	out := filepath.Join(t.TempDir(), "image")
	desc, err := Build(img, out)
	must(t, err)
	if _, err := Build(img, out); err == nil {
		t.Error("Build wrote over an existing layout")
	}

	var layout map[string]string
	readJSON(t, filepath.Join(out, "oci-layout"), &layout)
	if layout["imageLayoutVersion"] != "1.0.0" {
		t.Errorf("oci-layout: %v", layout)
	}
	var index Index
	readJSON(t, filepath.Join(out, "index.json"), &index)
	if len(index.Manifests) != 1 || index.Manifests[0].Digest != desc.Digest || index.Manifests[0].Annotations[refNameKey] != "v0.1.0" {
		t.Fatalf("index.json: %+v, want the manifest %s tagged v0.1.0", index, desc.Digest)
	}
	var man Manifest
	must(t, json.Unmarshal(blob(t, out, desc), &man))
	var cfg Config
	must(t, json.Unmarshal(blob(t, out, man.Config), &cfg))
	if cfg.Created != "2026-11-28T12:00:00Z" || cfg.Config.User != "65532:65532" || len(cfg.History) != 2 || cfg.History[1].CreatedBy != "app" {
		t.Errorf("config: %+v", cfg)
	}
	if len(man.Layers) != 2 || len(cfg.RootFS.DiffIDs) != 2 {
		t.Fatalf("manifest has %d layers, config %d diff_ids; want 2", len(man.Layers), len(cfg.RootFS.DiffIDs))
	}
	for i, l := range man.Layers {
		zr, err := gzip.NewReader(bytes.NewReader(blob(t, out, l)))
		must(t, err)
		h := sha256.New()
		_, err = io.Copy(h, zr)
		must(t, err)
		if got := "sha256:" + hex.EncodeToString(h.Sum(nil)); got != cfg.RootFS.DiffIDs[i] {
			t.Errorf("layer %d: uncompressed digest %s, config says %s", i, got, cfg.RootFS.DiffIDs[i])
		}
	}
	entries, err := os.ReadDir(filepath.Join(out, "blobs", "sha256"))
	must(t, err)
	if len(entries) != 3 { // one layer (the two trees are equal), the config, the manifest
		t.Errorf("%d blobs, want 3: %v", len(entries), entries)
	}
}

// blob reads the blob d points at and checks its digest and size.
func blob(t *testing.T, layout string, d Descriptor) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(layout, "blobs", "sha256", strings.TrimPrefix(d.Digest, "sha256:")))
	must(t, err)
	sum := sha256.Sum256(data)
	if got := "sha256:" + hex.EncodeToString(sum[:]); got != d.Digest || int64(len(data)) != d.Size {
		t.Errorf("blob %s: digest %s, %d bytes; descriptor says %d", d.Digest, got, len(data), d.Size)
	}
	return data
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	must(t, err)
	must(t, json.Unmarshal(data, v))
}
