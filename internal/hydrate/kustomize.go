package hydrate

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// kustomizationNames are the file names kustomize recognises, in its order.
var kustomizationNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// KustomizationFile returns the kustomization file of dir, or "".
func KustomizationFile(fsys fs.FS, dir string) string {
	for _, n := range kustomizationNames {
		if IsFile(fsys, path.Join(dir, n)) {
			return path.Join(dir, n)
		}
	}
	return ""
}

// Kustomize builds the kustomization in dir with the kustomize library,
// with the options Argo CD uses by default (load restrictions to the
// kustomization root, no plugins), and returns its objects. It returns
// skip, not an error, when the kustomization needs what an offline build
// cannot have: remote bases or resources, or Helm charts.
func Kustomize(fsys fs.FS, dir string) (objs []Object, skip string, err error) {
	if reason := offlineBlocker(fsys, dir, map[string]bool{}); reason != "" {
		return nil, reason, nil
	}
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	m, err := k.Run(kfs{fsys}, "/"+dir)
	if err != nil {
		return nil, "", errors.New(strings.ReplaceAll(err.Error(), "'/", "'"))
	}
	for _, r := range m.Resources() {
		data, err := r.AsYAML()
		if err != nil {
			return nil, "", err
		}
		o, err := decodeObject(dir, data)
		if err != nil {
			return nil, "", err
		}
		if o != nil {
			objs = append(objs, *o)
		}
	}
	return objs, "", nil
}

// kustomization is the part of a kustomization file that leads to other
// files and directories.
type kustomization struct {
	Resources  []string `json:"resources"`
	Bases      []string `json:"bases"`
	Components []string `json:"components"`
	HelmCharts []any    `json:"helmCharts"`
}

// offlineBlocker walks the kustomizations reachable from dir and returns why
// the build needs the network or a Helm binary, or "".
func offlineBlocker(fsys fs.FS, dir string, seen map[string]bool) string {
	if seen[dir] {
		return ""
	}
	seen[dir] = true
	file := KustomizationFile(fsys, dir)
	if file == "" {
		return ""
	}
	data, err := fs.ReadFile(fsys, file)
	if err != nil {
		return ""
	}
	var k kustomization
	if yaml.Unmarshal(data, &k) != nil {
		return "" // kustomize reports it
	}
	if len(k.HelmCharts) > 0 {
		return file + " inflates Helm charts (helmCharts), which needs the network and kustomize --enable-helm"
	}
	for _, list := range [][]string{k.Resources, k.Bases, k.Components} {
		for _, r := range list {
			if isRemote(r) {
				return fmt.Sprintf("%s refers to the remote %s", file, r)
			}
			p := path.Join(dir, r)
			if !path.IsAbs(r) && IsDir(fsys, p) {
				if reason := offlineBlocker(fsys, p, seen); reason != "" {
					return reason
				}
			}
		}
	}
	return ""
}

// isRemote reports whether a kustomization entry names something kustomize
// would fetch: a URL or a Git repository.
func isRemote(r string) bool {
	return strings.Contains(r, "://") || strings.HasPrefix(r, "git@") || strings.HasPrefix(r, "github.com/") ||
		strings.Contains(r, "?ref=") || strings.Contains(r, ".git/") || strings.HasSuffix(r, ".git")
}

// IsDir reports whether p is a directory of fsys.
func IsDir(fsys fs.FS, p string) bool {
	info, err := fs.Stat(fsys, p)
	return err == nil && info.IsDir()
}

// IsFile reports whether p is a file of fsys.
func IsFile(fsys fs.FS, p string) bool {
	info, err := fs.Stat(fsys, p)
	return err == nil && !info.IsDir()
}

// kfs presents an fs.FS (the repository, read-only) to kustomize as a
// filesys.FileSystem whose root "/" is the repository's root.
type kfs struct{ fsys fs.FS }

var errReadOnly = errors.New("the repository is read-only to strata")

// rel turns kustomize's absolute path into an fs.FS name.
func (k kfs) rel(p string) string {
	p = filepath.ToSlash(p)
	if !path.IsAbs(p) {
		p = "/" + p
	}
	p = strings.TrimPrefix(path.Clean(p), "/")
	if p == "" {
		return "."
	}
	return p
}

func (k kfs) Create(string) (filesys.File, error) { return nil, errReadOnly }
func (k kfs) Mkdir(string) error                  { return errReadOnly }
func (k kfs) MkdirAll(string) error               { return errReadOnly }
func (k kfs) RemoveAll(string) error              { return errReadOnly }
func (k kfs) WriteFile(string, []byte) error      { return errReadOnly }

func (k kfs) Open(p string) (filesys.File, error) {
	name := k.rel(p)
	data, err := fs.ReadFile(k.fsys, name)
	if err != nil {
		return nil, err
	}
	info, err := fs.Stat(k.fsys, name)
	if err != nil {
		return nil, err
	}
	return &kfile{Reader: bytes.NewReader(data), info: info}, nil
}

func (k kfs) IsDir(p string) bool  { return IsDir(k.fsys, k.rel(p)) }
func (k kfs) Exists(p string) bool { _, err := fs.Stat(k.fsys, k.rel(p)); return err == nil }

func (k kfs) ReadDir(p string) ([]string, error) {
	entries, err := fs.ReadDir(k.fsys, k.rel(p))
	if err != nil {
		return nil, err
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return names, nil
}

func (k kfs) CleanedAbs(p string) (filesys.ConfirmedDir, string, error) {
	name := k.rel(p)
	info, err := fs.Stat(k.fsys, name)
	if err != nil {
		return "", "", fmt.Errorf("%s does not exist", name)
	}
	abs := "/" + strings.TrimPrefix(name, ".")
	if info.IsDir() {
		return filesys.ConfirmedDir(path.Clean(abs)), "", nil
	}
	return filesys.ConfirmedDir(path.Dir(abs)), path.Base(abs), nil
}

func (k kfs) Glob(pattern string) ([]string, error) {
	matches, err := fs.Glob(k.fsys, k.rel(pattern))
	for i, m := range matches {
		matches[i] = "/" + m
	}
	return matches, err
}

func (k kfs) ReadFile(p string) ([]byte, error) { return fs.ReadFile(k.fsys, k.rel(p)) }

func (k kfs) Walk(p string, walkFn filepath.WalkFunc) error {
	return fs.WalkDir(k.fsys, k.rel(p), func(name string, d fs.DirEntry, err error) error {
		abs := "/" + strings.TrimPrefix(name, ".")
		if err != nil {
			return walkFn(abs, nil, err)
		}
		info, err := d.Info()
		return walkFn(abs, info, err)
	})
}

// kfile is a read-only file of kfs.
type kfile struct {
	*bytes.Reader
	info fs.FileInfo
}

func (f *kfile) Write([]byte) (int, error)  { return 0, errReadOnly }
func (f *kfile) Close() error               { return nil }
func (f *kfile) Stat() (os.FileInfo, error) { return f.info, nil }
