package validate

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/hydrate"
)

// appSource is one source of an Application (or of an ApplicationSet's
// template), with the field path it has in the resource.
type appSource struct {
	field string // spec.source, spec.sources[1], spec.template.spec.source
	m     map[string]any
}

func (s appSource) str(key string) string {
	v, _ := s.m[key].(string)
	return v
}

// appSpec returns the Application spec of a resource: the spec of an
// Application, the template's spec of an ApplicationSet, and its field path.
func appSpec(obj map[string]any) (map[string]any, string) {
	spec, _ := obj["spec"].(map[string]any)
	if spec == nil {
		return nil, ""
	}
	switch obj["kind"] {
	case "Application":
		return spec, "spec"
	case "ApplicationSet":
		tmpl, _ := spec["template"].(map[string]any)
		ts, _ := tmpl["spec"].(map[string]any)
		return ts, "spec.template.spec"
	}
	return nil, ""
}

// sourcesOf lists the sources of a resource.
func sourcesOf(obj map[string]any) []appSource {
	spec, prefix := appSpec(obj)
	if spec == nil {
		return nil
	}
	var out []appSource
	if m, ok := spec["source"].(map[string]any); ok {
		out = append(out, appSource{field: prefix + ".source", m: m})
	}
	if list, ok := spec["sources"].([]any); ok {
		for i, it := range list {
			if m, ok := it.(map[string]any); ok {
				out = append(out, appSource{field: fmt.Sprintf("%s.sources[%d]", prefix, i), m: m})
			}
		}
	}
	return out
}

// repoKey is hydrate.RepoKey: a repository URL reduced to host/path.
func repoKey(u string) string { return hydrate.RepoKey(u) }

// sourceResult is the outcome of checking one local source.
type sourceResult struct {
	severity Severity
	msg      string // "" when all is well
}

// sourceChecker checks sources that point into the repository, each
// distinct one once.
type sourceChecker struct {
	fsys fs.FS  // the repository, with rendered/ as rendered in memory
	repo string // repoKey of the repository's URL; "" when not declared
	// limits bound the render of a local Helm chart (render.RenderChart).
	limits fleet.RenderLimits
	// dir is the repository in its Git clone ("": none), branch the
	// revision that fsys stands for (config.yaml's repository.revision);
	// revs the trees of other revisions, read once (revisions.go).
	dir, branch string
	mu          sync.Mutex
	done        map[string]*sourceOnce
	revs        map[string]*revTree
}

// newSourceChecker checks the sources of f's repository in fsys (the
// working tree, rendered/ as rendered) and, at other revisions, in the Git
// clone at dir ("": none).
func newSourceChecker(f *fleet.Fleet, fsys fs.FS, dir string) *sourceChecker {
	c := &sourceChecker{fsys: fsys, done: map[string]*sourceOnce{}, limits: f.Config.Render.Limits,
		dir: dir, revs: map[string]*revTree{}}
	if f.Config.Repository != nil && f.Config.Repository.URL != "" {
		c.repo = repoKey(f.Config.Repository.URL)
		c.branch = f.Config.Repository.Revision
	}
	return c
}

type sourceOnce struct {
	once sync.Once
	res  sourceResult
}

// templateRE matches a template expression left for Argo CD.
var templateRE = regexp.MustCompile(`\{\{.*?\}\}`)

// check checks the source s of a resource named name with destination
// namespace ns. It returns a zero result for sources outside the repository.
func (c *sourceChecker) check(s appSource, name, ns string) sourceResult {
	if c.repo == "" || repoKey(s.str("repoURL")) != c.repo {
		return sourceResult{}
	}
	p := s.str("path")
	if p == "" || s.str("chart") != "" {
		return sourceResult{}
	}
	release := hydrate.ReleaseOf(s.m, name, ns)
	release.Limits = c.limits
	rev := c.revisionOf(s)
	key, _ := json.Marshal([]any{p, s.m["helm"], s.m["kustomize"], s.m["directory"], s.m["plugin"], release.Name(), release.Namespace(), rev})
	c.mu.Lock()
	o := c.done[string(key)]
	if o == nil {
		o = &sourceOnce{}
		c.done[string(key)] = o
	}
	c.mu.Unlock()
	o.once.Do(func() {
		fsys, res := c.treeAt(rev)
		if fsys == nil {
			o.res = res
			return
		}
		o.res = c.checkPath(fsys, s, p, release)
		if o.res.msg != "" && rev != "" {
			o.res.msg += " (at targetRevision " + rev + ")"
		}
	})
	return o.res
}

func (c *sourceChecker) checkPath(fsys fs.FS, s appSource, p string, release hydrate.Release) sourceResult {
	p = helmUnescape(p)
	if templateRE.MatchString(p) {
		pattern := templateRE.ReplaceAllString(path.Clean(strings.TrimPrefix(p, "/")), "*")
		if matches, err := fs.Glob(fsys, pattern); err == nil && len(matches) == 0 {
			return sourceResult{Warning, fmt.Sprintf("no directory of this repository matches %s (its template expressions taken as *)", p)}
		}
		return sourceResult{}
	}
	dir := path.Clean(strings.TrimPrefix(p, "./"))
	if path.IsAbs(dir) || dir == ".." || strings.HasPrefix(dir, "../") {
		return sourceResult{Error, fmt.Sprintf("path %s leaves the repository: Argo CD resolves it inside the repository", p)}
	}
	info, err := fs.Stat(fsys, dir)
	if err != nil {
		msg := fmt.Sprintf("path %s does not exist in this repository", p)
		if s := nearest(fsys, dir); s != "" {
			msg += fmt.Sprintf(": did you mean %s?", s)
		}
		return sourceResult{Error, msg}
	}
	if !info.IsDir() {
		return sourceResult{Error, fmt.Sprintf("path %s is a file: Argo CD needs the directory that holds the manifests", p)}
	}
	// A key set to null (helm: null, as kustomize builds leave it) sets no
	// source type: Argo CD ignores it.
	explicitKustomize := s.m["kustomize"] != nil
	explicitHelm := s.m["helm"] != nil
	plugin := s.m["plugin"] != nil
	switch {
	case plugin:
		return sourceResult{}
	case explicitHelm || (!explicitKustomize && hydrate.IsFile(fsys, dir+"/Chart.yaml")):
		if !hydrate.IsFile(fsys, dir+"/Chart.yaml") {
			return sourceResult{Error, fmt.Sprintf("path %s holds no Chart.yaml, but the source sets helm", p)}
		}
		_, skip, err := hydrate.HelmChart(fsys, dir, release)
		if err != nil {
			return sourceResult{Error, fmt.Sprintf("the Helm chart in %s does not render: %s", dir, oneLine(err))}
		}
		if skip != "" {
			return sourceResult{Warning, fmt.Sprintf("the Helm chart in %s was not rendered: %s", dir, skip)}
		}
	case explicitKustomize || hydrate.KustomizationFile(fsys, dir) != "":
		if hydrate.KustomizationFile(fsys, dir) == "" {
			return sourceResult{Error, fmt.Sprintf("path %s holds no kustomization.yaml, but the source sets kustomize", p)}
		}
		_, skip, err := hydrate.Kustomize(fsys, dir)
		if err != nil {
			return sourceResult{Error, fmt.Sprintf("kustomize build %s fails: %s", dir, oneLine(err))}
		}
		if skip != "" {
			return sourceResult{Warning, fmt.Sprintf("kustomize build %s was not run: %s", dir, skip)}
		}
	}
	return sourceResult{}
}

// nearest suggests an existing directory for a missing one: the closest
// name in the deepest existing parent.
func nearest(fsys fs.FS, dir string) string {
	parent, base := path.Split(dir)
	parent = strings.TrimSuffix(parent, "/")
	if parent == "" {
		parent = "."
	}
	if !hydrate.IsDir(fsys, parent) {
		if parent == "." {
			return ""
		}
		return nearest(fsys, parent)
	}
	entries, err := fs.ReadDir(fsys, parent)
	if err != nil {
		return ""
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	if s := closest(base, names); s != "" {
		return path.Join(parent, s)
	}
	return ""
}

// oneLine joins the lines of an error message.
func oneLine(err error) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), ":\n", ": ")), " ")
}
