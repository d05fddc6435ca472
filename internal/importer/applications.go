package importer

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/strata-fleet/strata/internal/hydrate"
	"github.com/strata-fleet/strata/internal/values"
)

// The applications format: a directory of Argo CD manifests per target, as
// a root Application reads it (vietcgi/infractl's apps/gitops/argocd/<env>/).
// A target is a directory Argo CD can build: one with a kustomization
// (built with kustomize's library, as Argo CD does) or one with manifest
// files (.yaml, .yml, .json; not its subdirectories, as Argo CD's directory
// source without recurse). The source directory is the one target when it
// is such a directory itself; otherwise each of its subdirectories that is
// one is a target, named after it, in one dimension (environments).

// readApplications reads the applications format.
func readApplications(fsys fs.FS, opts Options) (*Source, error) {
	dir := path.Clean(opts.Dir)
	if !hydrate.IsDir(fsys, dir) {
		return nil, fmt.Errorf("%s is not a directory", opts.show(dir))
	}
	dims := opts.Dimensions
	if dims == nil {
		dims = []string{"environments"}
	}
	if len(dims) != 1 {
		return nil, fmt.Errorf("the applications format makes one dimension (a target per directory), not %d (%s)", len(dims), strings.Join(dims, ", "))
	}
	src := &Source{ClusterType: opts.ClusterType, Dimensions: dims}
	if src.ClusterType == "" {
		src.ClusterType = ClusterTypeFor(dir)
	}
	var dirs []string
	if buildable(fsys, dir) {
		dirs = []string{dir}
	} else {
		entries, err := fs.ReadDir(fsys, dir)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if p := path.Join(dir, e.Name()); e.IsDir() && buildable(fsys, p) {
				dirs = append(dirs, p)
			}
		}
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("%s holds no Argo CD manifests: neither it nor a directory in it has a kustomization or .yaml files of objects", opts.show(dir))
	}
	for _, d := range dirs {
		t := &Target{Path: []string{path.Base(d)}, Dir: d}
		if d == "." {
			t.Path = []string{src.ClusterType}
		}
		var err error
		if hydrate.KustomizationFile(fsys, d) != "" {
			err = readKustomization(fsys, t, src, opts)
		} else {
			err = readDirectory(fsys, t, src)
		}
		if err != nil {
			return nil, err
		}
		src.Findings = append(src.Findings, roots(t, src.ClusterType)...)
		src.Targets = append(src.Targets, t)
	}
	return src, nil
}

// ClusterTypeFor names a cluster type after the directory dir, or "fleet"
// when its name cannot be one.
func ClusterTypeFor(dir string) string {
	name := strings.ToLower(path.Base(dir))
	if name == "." || name == "/" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789-_.") != "" || !isAlnum(name[0]) {
		return "fleet"
	}
	return name
}

func isAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

// manifestFile reports whether Argo CD's directory source reads the file.
func manifestFile(name string) bool {
	switch path.Ext(name) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// buildable reports whether Argo CD could build dir: a kustomization, or
// manifest files.
func buildable(fsys fs.FS, dir string) bool {
	if hydrate.KustomizationFile(fsys, dir) != "" {
		return true
	}
	entries, _ := fs.ReadDir(fsys, dir)
	return slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return !e.IsDir() && manifestFile(e.Name()) })
}

// readDirectory reads t's objects from the manifest files of its
// directory, as Argo CD's directory source does. A document that is not
// an object (values kept beside the manifests) is reported and skipped, as
// Argo CD skips it.
func readDirectory(fsys fs.FS, t *Target, src *Source) error {
	entries, err := fs.ReadDir(fsys, t.Dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() {
			if buildable(fsys, path.Join(t.Dir, e.Name())) {
				src.Findings = append(src.Findings, Finding{Target: t.ID(), At: path.Join(t.Dir, e.Name()),
					Reason: "not imported: Argo CD's directory source does not read subdirectories (without directory.recurse); import it on its own if a root reads it"})
			}
			continue
		}
		if !manifestFile(e.Name()) {
			continue
		}
		file := path.Join(t.Dir, e.Name())
		data, err := fs.ReadFile(fsys, file)
		if err != nil {
			return err
		}
		docs, dups, err := readDocuments(file, data)
		if err != nil {
			return err
		}
		src.Findings = append(src.Findings, inTarget(t, dups)...)
		for _, d := range docs {
			o, err := objectOf(d)
			if err != nil {
				var ve *values.Error
				if errors.As(err, &ve) {
					src.Findings = append(src.Findings, Finding{Target: t.ID(), At: d.at(),
						Reason: "not imported: " + ve.Msg + " (Argo CD's directory source skips such a file too)"})
					continue
				}
				return err
			}
			t.Objects = append(t.Objects, o)
		}
	}
	return nil
}

// inTarget returns fs as findings of target t.
func inTarget(t *Target, fs []Finding) []Finding {
	for i := range fs {
		fs[i].Target = t.ID()
	}
	return fs
}

// readKustomization builds t's kustomization with kustomize's library.
func readKustomization(fsys fs.FS, t *Target, src *Source, opts Options) error {
	kfile := hydrate.KustomizationFile(fsys, t.Dir)
	objs, skip, err := hydrate.Kustomize(fsys, t.Dir)
	switch {
	case err != nil:
		return fmt.Errorf("building %s with kustomize: %w", opts.show(kfile), err)
	case skip != "":
		return fmt.Errorf("cannot build %s offline: %s", opts.show(kfile), skip)
	}
	where := definitions(fsys, t, src)
	src.Findings = append(src.Findings, unread(fsys, t, kfile)...)
	for _, ko := range objs {
		docs, _, err := readDocuments(kfile, ko.YAML)
		if err != nil {
			return err
		}
		for _, d := range docs {
			o, err := objectOf(d)
			if err != nil {
				return fmt.Errorf("%s builds an object: %w", opts.show(kfile), err)
			}
			o.At, o.Written = kfile, nil
			if w, ok := where[o.Key()]; ok {
				o.At, o.Written = w.At, w.Written
			}
			t.Objects = append(t.Objects, o)
		}
	}
	return nil
}

// definitions maps Kind/name to the object a manifest file of dir defines,
// for the report of a kustomization's objects (kustomize's output does not
// say where each comes from).
func definitions(fsys fs.FS, t *Target, src *Source) map[string]*Object {
	dir := t.Dir
	where := map[string]*Object{}
	entries, _ := fs.ReadDir(fsys, dir)
	for _, e := range entries {
		if e.IsDir() || !manifestFile(e.Name()) {
			continue
		}
		file := path.Join(dir, e.Name())
		data, err := fs.ReadFile(fsys, file)
		if err != nil {
			continue
		}
		docs, dups, _ := readDocuments(file, data)
		src.Findings = append(src.Findings, inTarget(t, dups)...)
		for _, d := range docs {
			if o, err := objectOf(d); err == nil {
				where[o.Key()] = o
			}
		}
	}
	return where
}

// unread reports the manifest files beside a kustomization that it does
// not name: kustomize never reads them, whatever they hold.
func unread(fsys fs.FS, t *Target, kfile string) []Finding {
	data, err := fs.ReadFile(fsys, kfile)
	if err != nil {
		return nil
	}
	named := map[string]bool{}
	var k yaml.Node
	if yaml.Unmarshal(data, &k) == nil {
		scalars(&k, func(s string) { named[path.Clean(s)] = true })
	}
	var out []Finding
	entries, _ := fs.ReadDir(fsys, t.Dir)
	for _, e := range entries {
		if e.IsDir() || !manifestFile(e.Name()) || path.Join(t.Dir, e.Name()) == kfile || named[e.Name()] {
			continue
		}
		out = append(out, Finding{Target: t.ID(), At: path.Join(t.Dir, e.Name()), Fault: true,
			Reason: "never read: " + path.Base(kfile) + " does not name it, so Argo CD does not apply it; not imported"})
	}
	return out
}

// scalars calls f with every scalar of n.
func scalars(n *yaml.Node, f func(string)) {
	if n.Kind == yaml.ScalarNode {
		f(n.Value)
	}
	for _, c := range n.Content {
		scalars(c, f)
	}
}

// roots reports the Applications of t that read t's own directory: its
// root, which strata does not place there.
func roots(t *Target, ct string) []Finding {
	var out []Finding
	for _, o := range t.Objects {
		if o.Kind != "Application" {
			continue
		}
		if p := path.Clean(str(get(get(o.Doc, "spec"), "source"), "path")); p == t.Dir {
			out = append(out, Finding{Target: t.ID(), Object: o.Key(), Field: "spec.source.path", At: o.At,
				Reason: fmt.Sprintf("the root reads %s, where the repository keeps its manifests; strata writes the target to rendered/%s/%s (a Helm chart): point the root there when moving, as config.yaml cannot yet place a target's output at %s", t.Dir, ct, t.ID(), t.Dir)})
		}
	}
	return out
}
