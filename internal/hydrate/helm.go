package hydrate

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
	releaseutil "helm.sh/helm/v4/pkg/release/v1/util"
	"helm.sh/helm/v4/pkg/strvals"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/render"
)

// Release is what Argo CD hands `helm template` for a Helm source.
type Release struct {
	name, namespace string
	// valueFiles are relative to the chart; values is a YAML document;
	// valuesObject a mapping; parameters name=value pairs.
	valueFiles              []string
	values                  string
	valuesObject            map[string]any
	parameters              []helmParameter
	ignoreMissingValueFiles bool
	// Limits bound the chart's render as a target's (render.RenderChart);
	// zero for the defaults.
	Limits fleet.RenderLimits
}

type helmParameter struct {
	name, value string
	forceString bool
}

// HelmChart renders the chart in dir of fsys with Helm's engine as `helm
// template` does for Argo CD, and returns its manifests (the objects, in
// file order). It returns skip, not an error, when the chart cannot be
// rendered offline (dependencies that are not vendored in charts/).
func HelmChart(fsys fs.FS, dir string, rel Release) (objs []Object, skip string, err error) {
	c, err := loadChartDir(fsys, dir)
	if err != nil {
		return nil, "", err
	}
	if missing := missingDependencies(c); len(missing) > 0 {
		return nil, fmt.Sprintf("its dependencies %s are not vendored in %s/charts (Argo CD fetches them; strata works offline)",
			strings.Join(missing, ", "), dir), nil
	}
	vals, err := rel.mergedValues(fsys, dir)
	if err != nil {
		return nil, "", err
	}
	objs, err = renderChart(c, vals, rel, dir)
	return objs, "", err
}

// renderChart renders the loaded chart c (from where) with vals as release
// rel, under rel's limits.
func renderChart(c *chart.Chart, vals map[string]any, rel Release, where string) ([]Object, error) {
	if err := chartutil.ProcessDependencies(c, vals); err != nil {
		return nil, err
	}
	opts := common.ReleaseOptions{Name: rel.name, Namespace: rel.namespace, Revision: 1, IsInstall: true}
	rv, err := util.ToRenderValuesWithSchemaValidation(c, vals, opts, common.DefaultCapabilities, false)
	if err != nil {
		return nil, err
	}
	out, err := render.RenderChart(c, rv, rel.Limits, where)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(out))
	for name := range out {
		names = append(names, name)
	}
	sort.Strings(names)
	var objs []Object
	for _, name := range names {
		if !strings.HasSuffix(name, ".yaml") && !strings.HasSuffix(name, ".yml") && !strings.HasSuffix(name, ".json") {
			continue
		}
		for _, doc := range releaseutil.SplitManifests(out[name]) {
			o, err := decodeObject(name, []byte(doc))
			if err != nil {
				return nil, fmt.Errorf("%s renders invalid YAML: %w", name, err)
			}
			if o != nil {
				objs = append(objs, *o)
			}
		}
	}
	return objs, nil
}

// loadChartDir loads the chart in dir of fsys.
func loadChartDir(fsys fs.FS, dir string) (*chart.Chart, error) {
	files, err := render.ReadChartFiles(fsys, dir)
	if err != nil {
		return nil, err
	}
	return loader.LoadFiles(files)
}

// missingDependencies lists the dependencies of Chart.yaml that charts/ does
// not hold.
func missingDependencies(c *chart.Chart) []string {
	have := map[string]bool{}
	for _, d := range c.Dependencies() {
		have[d.Name()] = true
	}
	var missing []string
	for _, d := range c.Metadata.Dependencies {
		if !have[d.Name] {
			missing = append(missing, d.Name)
		}
	}
	return missing
}

// mergedValues layers the release's values as Argo CD passes them to Helm:
// value files (of the chart in dir of fsys), then values (or
// valuesObject), then parameters.
func (rel Release) mergedValues(fsys fs.FS, dir string) (map[string]any, error) {
	return rel.merge(func(f string) ([]byte, error) { return fs.ReadFile(fsys, path.Clean(path.Join(dir, f))) })
}

// merge is mergedValues with the value files read by read (a name
// relative to the chart).
func (rel Release) merge(read func(string) ([]byte, error)) (map[string]any, error) {
	vals := map[string]any{}
	for _, f := range rel.valueFiles {
		if strings.HasPrefix(f, "$") || strings.Contains(f, "://") {
			continue // from another source or a URL: not checked
		}
		data, err := read(f)
		if err != nil {
			if rel.ignoreMissingValueFiles {
				continue
			}
			return nil, fmt.Errorf("value file %s: %w", f, unwrapPathError(err))
		}
		v, err := common.ReadValues(data)
		if err != nil {
			return nil, fmt.Errorf("value file %s: %w", f, err)
		}
		vals = util.MergeTables(v, vals)
	}
	if rel.values != "" {
		v, err := common.ReadValues([]byte(rel.values))
		if err != nil {
			return nil, fmt.Errorf("helm.values: %w", err)
		}
		vals = util.MergeTables(v, vals)
	}
	if rel.valuesObject != nil {
		// The object is shared by the targets that render it: copy it.
		vals = util.MergeTables(runtime.DeepCopyJSON(rel.valuesObject), vals)
	}
	for _, p := range rel.parameters {
		parse := strvals.ParseInto
		if p.forceString {
			parse = strvals.ParseIntoString
		}
		if err := parse(p.name+"="+p.value, vals); err != nil {
			return nil, fmt.Errorf("helm.parameters %s: %w", p.name, err)
		}
	}
	return vals, nil
}

// unwrapPathError drops the operation and path of an *fs.PathError.
func unwrapPathError(err error) error {
	// Only the outermost: the op and path of one wrapped in other
	// context are part of that context.
	if pe, ok := err.(*fs.PathError); ok { //nolint:errorlint // the outermost only, as said
		return pe.Err
	}
	return err
}
