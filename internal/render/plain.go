package render

import (
	"fmt"
	"path"
	"strings"

	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/loader/archive"
	"helm.sh/helm/v4/pkg/chart/v2/loader"

	"github.com/strata-fleet/strata/internal/fleet"
)

// The release Argo CD renders a target's chart as: the root Application
// in Argo CD's namespace.
const (
	ArgoRelease   = "root"
	ArgoNamespace = "argocd"
)

// plainHeader starts every file of plain manifests render writes.
const plainHeader = "# Written by strata render from config/ (config.yaml's layout.manifests): edit config/, not this file.\n"

// RenderAsArgoCD renders the chart of files (a target's Chart.yaml,
// values.yaml and templates/, their paths under dir) as Argo CD's repo
// server does: Helm's engine, the root's release, vals (an Application's
// helm.valuesObject, or nil) over values.yaml. Only the templates of the
// resources called names are rendered (all when names is empty). The
// result maps each template, relative to the chart ("templates/x.yaml"),
// to its text.
func RenderAsArgoCD(dir string, files []File, vals map[string]any, names ...string) (map[string]string, error) {
	want := map[string]bool{}
	for _, n := range names {
		want["templates/"+n+".yaml"] = true
	}
	var buf []*archive.BufferedFile
	for _, f := range files {
		name := strings.TrimPrefix(f.Path, dir+"/")
		if strings.HasPrefix(name, "templates/") && len(want) > 0 && !want[name] {
			continue
		}
		buf = append(buf, &archive.BufferedFile{Name: name, Data: f.Data})
	}
	ch, err := loader.LoadFiles(buf)
	if err != nil {
		return nil, fmt.Errorf("loading %s as a Helm chart: %w", dir, err)
	}
	rv, err := util.ToRenderValues(ch, vals, common.ReleaseOptions{Name: ArgoRelease, Namespace: ArgoNamespace, Revision: 1, IsInstall: true}, nil)
	if err != nil {
		return nil, fmt.Errorf("values of %s: %w", dir, err)
	}
	rendered, err := RenderChart(ch, rv, fleet.DefaultRenderLimits(), dir)
	if err != nil {
		return nil, fmt.Errorf("rendering %s as Argo CD does: %w", dir, err)
	}
	out := make(map[string]string, len(rendered))
	for file, text := range rendered {
		if _, rel, ok := strings.Cut(file, "/"); ok { // Helm names them <chart>/templates/...
			out[rel] = text
		}
	}
	return out, nil
}

// plainFiles are the files of target t under layout.manifests: its
// chart (files) rendered as Argo CD renders it, each resource's text as
// Helm gives it, in the one file the layout names (documents in name
// order) or in a file per resource.
func plainFiles(t Target, files []File) ([]File, error) {
	dir := t.Dir()
	texts, err := RenderAsArgoCD(dir, files, nil)
	if err != nil {
		return nil, err
	}
	l := t.ClusterType.Layout
	var out []File
	var one strings.Builder
	for _, f := range files { // in path order: templates/<name>.yaml by name
		rel := strings.TrimPrefix(f.Path, dir+"/")
		if !strings.HasPrefix(rel, "templates/") {
			continue
		}
		text := strings.TrimSpace(texts[rel])
		if text == "" {
			continue
		}
		name := strings.TrimSuffix(path.Base(rel), ".yaml")
		if strings.Contains(l.Manifests(), fleet.NamePlaceholder) {
			out = append(out, File{Path: dir + "/" + l.ManifestFile(name), Data: []byte(plainHeader + text + "\n")})
			continue
		}
		if one.Len() > 0 {
			one.WriteString("---\n")
		}
		one.WriteString(text + "\n")
	}
	if !strings.Contains(l.Manifests(), fleet.NamePlaceholder) {
		out = append(out, File{Path: dir + "/" + l.Manifests(), Data: []byte(plainHeader + one.String())})
	}
	sortFiles(out)
	return out, nil
}

// PlainFiles are the files layout.manifests gives the target of out, a
// render in chart form (Renderer.ChartForm).
func PlainFiles(out *Output) ([]File, error) { return plainFiles(out.Target, out.Files) }
