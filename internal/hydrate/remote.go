package hydrate

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/helmpath"
)

// remoteChart builds a chart of a Helm repository from Helm's cache:
// <cache>/<chart>-<version>.tgz. A chart that is not there is not fetched:
// Skip says so, with the command that puts it there.
func (b *Builder) remoteChart(repo, chart, version string, rel Release) *Build {
	out := &Build{Where: repo + " " + chart + "@" + version}
	file := ""
	if b.ChartCache != "" {
		file = filepath.Join(b.ChartCache, chart+"-"+version+".tgz")
	}
	if _, err := os.Stat(file); file == "" || err != nil {
		out.Skip = "the chart is not in Helm's cache and strata does not use the network"
		if b.ChartCache != "" {
			out.Skip += " (helm pull " + chart + " --repo " + repo + " --version " + version + " -d " + b.ChartCache + ")"
		}
		return out
	}
	c, err := loader.Load(file)
	if err != nil {
		out.Err = err.Error()
		return out
	}
	if missing := missingDependencies(c); len(missing) > 0 {
		out.Skip = "its dependencies are not in the chart archive"
		return out
	}
	vals, err := rel.merge(func(name string) ([]byte, error) {
		for _, f := range c.Raw {
			if f.Name == path.Clean(name) {
				return f.Data, nil
			}
		}
		return nil, fs.ErrNotExist
	})
	if err != nil {
		out.Err = err.Error()
		return out
	}
	out.Tool = "helm"
	objs, err := renderChart(c, vals, rel, repo+" "+chart)
	if err != nil {
		out.Err = err.Error()
	}
	out.Objects = sortObjects(objs)
	return out
}

// DefaultChartCache is Helm's repository cache, where `helm pull` and
// `helm dependency build` keep charts: $HELM_CACHE_HOME/repository (by
// default ~/.cache/helm/repository).
func DefaultChartCache() string { return helmpath.CachePath("repository") }
