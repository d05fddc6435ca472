package render

import (
	"crypto/sha256"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync/atomic"

	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/loader/archive"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
)

// builtinSource is the Source of the built-in chart.
const builtinSource = "(built in)"

// ChartDir is where a repository may keep its own templates chart.
const ChartDir = "argocd-apps"

//go:embed all:chart
var builtin embed.FS

// Chart is the templates chart of pass 1.
type Chart struct {
	chart *chart.Chart
	// Source is the chart's directory in the repository, or builtinSource.
	Source string
	// Digest identifies the chart's files, for fingerprints.
	Digest [32]byte
	// plain is true when the chart has no values and no dependencies, so
	// that Helm's coalescing is a plain copy.
	plain bool
	meta  map[string]any
	// shared is true when the chart is plain, so that renders may share
	// value objects (fast.go, guard.go); fresh is set once a render of the
	// chart modified values: it renders on fresh copies from then on.
	shared bool
	fresh  atomic.Bool
	// items, for the built-in chart, renders item by item (items.go).
	items *itemMemo
}

// LoadChart loads the repository's argocd-apps/ chart when it has one, and
// the built-in chart otherwise.
func LoadChart(fsys fs.FS) (*Chart, error) {
	if _, err := fs.Stat(fsys, ChartDir+"/Chart.yaml"); err == nil {
		return loadChart(fsys, ChartDir, ChartDir)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("reading %s: %w", ChartDir, err)
	}
	return loadChart(builtin, "chart", builtinSource)
}

// ReadChartFiles reads the files of the chart in dir of fsys, named
// relative to dir, in name order: what Helm's loader.LoadFiles takes.
func ReadChartFiles(fsys fs.FS, dir string) ([]*archive.BufferedFile, error) {
	var files []*archive.BufferedFile
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		files = append(files, &archive.BufferedFile{Name: strings.TrimPrefix(p, dir+"/"), Data: data})
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	return files, nil
}

func loadChart(fsys fs.FS, dir, source string) (*Chart, error) {
	files, err := ReadChartFiles(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("reading chart %s: %w", source, err)
	}
	h := sha256.New()
	for _, f := range files {
		fmt.Fprintf(h, "%s\x00%d\x00", f.Name, len(f.Data))
		h.Write(f.Data)
	}
	c, err := loader.LoadFiles(files)
	if err != nil {
		return nil, fmt.Errorf("loading chart %s: %w", source, err)
	}
	out := &Chart{chart: c, Source: source, plain: len(c.Values) == 0 && len(c.Dependencies()) == 0}
	copy(out.Digest[:], h.Sum(nil))
	out.meta = metadataMap(c.Metadata)
	if out.plain {
		out.shared = true
		if fsys == builtin {
			if out.items, err = newItemMemo(out); err != nil {
				return nil, fmt.Errorf("loading chart %s: %w", source, err)
			}
		}
	}
	return out, nil
}

// metadataMap is .Chart as Helm exposes it to templates.
func metadataMap(m *chart.Metadata) map[string]any {
	return map[string]any{
		"Name": m.Name, "Version": m.Version, "Description": m.Description, "APIVersion": m.APIVersion,
		"AppVersion": m.AppVersion, "Type": m.Type, "Home": m.Home, "Icon": m.Icon, "Keywords": m.Keywords,
		"Sources": m.Sources, "Annotations": m.Annotations, "KubeVersion": m.KubeVersion, "Deprecated": m.Deprecated,
		"Maintainers": m.Maintainers, "Dependencies": m.Dependencies, "Condition": "", "Tags": "",
	}
}

// passTwoChart wraps pass 1's output as the one template of a chart, as the
// reference does with a temporary chart.
func passTwoChart(manifest string) *chart.Chart {
	return &chart.Chart{
		Metadata: &chart.Metadata{
			APIVersion: "v2", Name: "temp-chart", Description: "Temporary chart for double templating",
			Type: "application", Version: "0.1.0",
		},
		Templates: []*common.File{{Name: path.Join("templates", "apps.yaml"), Data: []byte(manifest)}},
	}
}

// BuiltinChartFiles returns the files of the built-in chart, named relative
// to the chart, in name order (strata chart show).
func BuiltinChartFiles() ([]File, error) {
	files, err := ReadChartFiles(builtin, "chart")
	if err != nil {
		return nil, err
	}
	out := make([]File, len(files))
	for i, f := range files {
		out[i] = File{Path: f.Name, Data: f.Data}
	}
	return out, nil
}
