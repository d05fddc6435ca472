package hydrate

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/strata-fleet/strata/internal/fleet"
)

// Build is what one source of an Application builds to.
type Build struct {
	// Tool is how it was built: "helm", "kustomize" or "directory"
	// (empty when it was not).
	Tool string `json:"tool,omitempty"`
	// Where is the source: the directory in the repository, or the remote
	// chart (repoURL chart@version).
	Where string `json:"where"`
	// Objects are the objects it builds, in key order.
	Objects []Object `json:"-"`
	// Skip says why it was not built: it needs the network or a tool
	// strata does not run. Err is a build that failed.
	Skip string `json:"skip,omitempty"`
	Err  string `json:"error,omitempty"`
}

// Builder builds the sources of Applications of one fleet repository,
// each distinct source once.
type Builder struct {
	// FS is the repository; Repo the repoKey of its URL (config.yaml
	// repository.url), "" when it is not declared: then no source is known
	// to be inside it.
	FS   fs.FS
	Repo string
	// ChartCache is the directory of Helm's repository cache, where a
	// remote chart is looked for as <chart>-<version>.tgz; "" for none.
	ChartCache string
	// Limits bound the render of a chart, as a target's (config.yaml's
	// render.limits).
	Limits fleet.RenderLimits

	mu   sync.Mutex
	done map[string]*buildOnce
}

type buildOnce struct {
	once sync.Once
	b    *Build
}

// templateRE matches a template expression left for Argo CD.
var templateRE = regexp.MustCompile(`\{\{.*?\}\}`)

// Build builds src (an Application's source) for the Application called
// name with destination namespace ns. Every source gets a Build: one that
// is neither in the repository nor a Helm chart says so in Skip.
func (b *Builder) Build(src map[string]any, name, ns string) *Build {
	key, _ := json.Marshal([]any{src, name, ns})
	b.mu.Lock()
	if b.done == nil {
		b.done = map[string]*buildOnce{}
	}
	o := b.done[string(key)]
	if o == nil {
		o = &buildOnce{}
		b.done[string(key)] = o
	}
	b.mu.Unlock()
	o.once.Do(func() { o.b = b.build(src, name, ns) })
	return o.b
}

func (b *Builder) build(src map[string]any, name, ns string) *Build {
	str := func(k string) string { s, _ := src[k].(string); return s }
	repo, p, chart := str("repoURL"), str("path"), str("chart")
	rel := ReleaseOf(src, name, ns)
	rel.Limits = b.Limits
	switch {
	case chart != "":
		return b.remoteChart(repo, chart, str("targetRevision"), rel)
	case b.Repo == "" || RepoKey(repo) != b.Repo:
		return &Build{Where: repo + " " + p, Skip: "its repository is not this one (config.yaml repository.url): strata sees only this repository"}
	}
	out := &Build{Where: p}
	dir := path.Clean(strings.TrimPrefix(p, "./"))
	_, plugin := src["plugin"]
	_, helm := src["helm"]
	_, kustomize := src["kustomize"]
	var objs []Object
	var err error
	switch {
	case templateRE.MatchString(p):
		out.Skip = "its path is a template that Argo CD resolves per cluster"
	case path.IsAbs(dir) || dir == ".." || strings.HasPrefix(dir, "../"):
		out.Err = "its path leaves the repository"
	case !IsDir(b.FS, dir):
		out.Err = "its path is not a directory of the repository"
	case plugin:
		out.Skip = "a config management plugin builds it, which strata does not run"
	case helm || (!kustomize && IsFile(b.FS, dir+"/Chart.yaml")):
		out.Tool = "helm"
		objs, out.Skip, err = HelmChart(b.FS, dir, rel)
	case kustomize || KustomizationFile(b.FS, dir) != "":
		out.Tool = "kustomize"
		objs, out.Skip, err = Kustomize(b.FS, dir)
	default:
		out.Tool = "directory"
		objs, out.Skip, err = directory(b.FS, dir, src)
	}
	if err != nil {
		out.Err = strings.Join(strings.Fields(err.Error()), " ")
	}
	out.Objects = sortObjects(objs)
	return out
}

// directory reads the manifests of a directory source (recursing when
// directory.recurse is set), as Argo CD applies them.
func directory(fsys fs.FS, dir string, src map[string]any) ([]Object, string, error) {
	d, _ := src["directory"].(map[string]any)
	recurse, _ := d["recurse"].(bool)
	var objs []Object
	err := fs.WalkDir(fsys, dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if p != dir && !recurse {
				return fs.SkipDir
			}
			return nil
		}
		switch path.Ext(p) {
		case ".jsonnet", ".libsonnet":
			return fmt.Errorf("%s: Jsonnet is not built by strata", p)
		case ".yaml", ".yml", ".json":
		default:
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		os, err := decodeStream(p, data)
		objs = append(objs, os...)
		return err
	})
	if err != nil && strings.Contains(err.Error(), "Jsonnet") {
		return nil, err.Error(), nil
	}
	return objs, "", err
}

func sortObjects(objs []Object) []Object {
	slices.SortStableFunc(objs, func(a, b Object) int { return strings.Compare(a.Key(), b.Key()) })
	return objs
}
