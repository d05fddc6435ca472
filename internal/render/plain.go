package render

import (
	"fmt"
	"path"
	"strings"
	"unicode"

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
// order) or in a file per resource. Each template's actions must be raw
// string literals (the escapes strata writes: {{`{{ .name }}`}}), which
// literalText renders without Helm (unless noShortcuts): any other action
// is left for Argo CD's Helm render, with the values the root gives
// (.Values.cluster.name), and plain manifests have neither; it is an error.
func plainFiles(t Target, files []File, noShortcuts bool) ([]File, error) {
	dir := t.Dir()
	texts := map[string]string{}
	var helm []string // the resources rendered with Helm's engine (noShortcuts)
	for _, f := range files {
		rel := strings.TrimPrefix(f.Path, dir+"/")
		if !strings.HasPrefix(rel, "templates/") {
			continue
		}
		text, ok := literalText(string(f.Data))
		if !ok {
			return nil, fmt.Errorf("resource %s holds %s, an action for Argo CD's Helm render of strata's chart (with the values the root gives, such as .Values.cluster.name); plain manifests (layout.manifests) have no such render: write the value for strata to resolve (one escape less), or remove layout.manifests",
				strings.TrimSuffix(path.Base(rel), ".yaml"), firstAction(string(f.Data)))
		}
		if noShortcuts {
			helm = append(helm, strings.TrimSuffix(path.Base(rel), ".yaml"))
		} else {
			texts[rel] = text
		}
	}
	if len(helm) > 0 {
		rendered, err := RenderAsArgoCD(dir, files, nil, helm...)
		if err != nil {
			return nil, err
		}
		for _, name := range helm {
			texts["templates/"+name+".yaml"] = rendered["templates/"+name+".yaml"]
		}
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

// literalText is what Helm's engine renders of the template s when every
// action in it is a raw string literal ({{`...`}}, no spaces, no trim
// markers): the text with each action replaced by its string. false for
// any other action, and for a result holding "<no value>" (which Helm's
// engine removes).
func literalText(s string) (string, bool) {
	var b strings.Builder
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		s = s[i+2:]
		if !strings.HasPrefix(s, "`") {
			return "", false
		}
		j := strings.IndexByte(s[1:], '`')
		if j < 0 || !strings.HasPrefix(s[j+2:], "}}") {
			return "", false
		}
		b.WriteString(s[1 : j+1])
		s = s[j+4:]
	}
	if strings.Contains(b.String(), "<no value>") {
		return "", false
	}
	return b.String(), true
}

// firstAction is the first action of s that is not a raw string literal,
// shortened for a message.
func firstAction(s string) string {
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			return "an action"
		}
		s = s[i:]
		if strings.HasPrefix(s, "{{`") {
			if j := strings.IndexByte(s[3:], '`'); j >= 0 && strings.HasPrefix(s[3+j+1:], "}}") {
				s = s[3+j+3:] // a literal: the next
				continue
			}
		}
		if j := strings.Index(s, "}}"); j >= 0 {
			s = s[:j+2]
		}
		if len(s) > 60 {
			s = s[:57] + "..."
		}
		return s
	}
}

// PlainFiles are the files layout.manifests gives the target of out, a
// render in chart form (Renderer.ChartForm).
func PlainFiles(out *Output) ([]File, error) { return plainFiles(out.Target, out.Files, false) }

// PlainLine is the line of plain (one of PlainFiles) that line 1 of the
// chart template tmpl (a file of the chart form) stands at: its text is
// copied there, escapes removed. 0 when it is not in plain.
func PlainLine(plain, tmpl File) int {
	text, ok := literalText(string(tmpl.Data))
	trimmed := strings.TrimSpace(text)
	i := strings.Index(string(plain.Data), trimmed)
	if !ok || trimmed == "" || i < 0 {
		return 0
	}
	lead := strings.Count(text[:len(text)-len(strings.TrimLeftFunc(text, unicode.IsSpace))], "\n")
	return strings.Count(string(plain.Data[:i]), "\n") + 1 - lead
}
