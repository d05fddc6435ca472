package pin

import (
	"fmt"
	pathpkg "path"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/values"
	"github.com/strata-fleet/strata/internal/yamledit"
)

// A named revision (config.yaml's revisions:, fleet/revisions.go) is pinned
// in the node's revisions: mapping, revisions.<name>, with the same forms
// as revision: (one revision, or one per cluster type). The root's tree does
// not move; the sources that follow .Values.cluster.revisions.<name> do.

// namedEdit is the one edit that sets revisions.<named> of the node
// written as item.
func namedEdit(d *yamledit.Doc, item *yaml.Node, inFlow bool, nodeName, named string, want *fleet.Revision) (yamledit.Edit, error) {
	entry := scalarText(named, true) + ": " + revisionText(want, true)
	if item.Kind == yaml.ScalarNode {
		// "- us-east1" becomes "- {name: us-east1, revisions: {charts: ...}}".
		end, err := d.ScalarEnd(item, inFlow)
		if err != nil {
			return yamledit.Edit{}, err
		}
		start := d.Start(item)
		return yamledit.Edit{Start: start, End: end, Text: fmt.Sprintf("{name: %s, revisions: {%s}}", d.Src[start:end], entry)}, nil
	}
	flow := yamledit.IsFlow(item)
	rk, rv := yamledit.Find(item, "revisions")
	if rk == nil {
		return insertAfterName(d, item, flow, nodeName, "revisions: {"+entry+"}")
	}
	if rv.Kind != yaml.MappingNode || len(rv.Content) == 0 {
		return yamledit.Edit{}, fmt.Errorf("node %s: revisions is not a mapping", nodeName)
	}
	mflow := yamledit.IsFlow(rv)
	k, v := yamledit.Find(rv, named)
	if k == nil {
		return appendEntry(d, rv, mflow, entry)
	}
	return replaceValue(d, k, v, mflow, nodeName, named, want)
}

// insertAfterName inserts the entry text into the node's mapping item,
// after its name.
func insertAfterName(d *yamledit.Doc, item *yaml.Node, flow bool, nodeName, text string) (yamledit.Edit, error) {
	nk, nv := yamledit.Find(item, "name")
	if nv == nil || !yamledit.SingleLineScalar(nv) {
		return yamledit.Edit{}, fmt.Errorf("node %s: name is not a plain scalar", nodeName)
	}
	end, err := d.ScalarEnd(nv, flow)
	if err != nil {
		return yamledit.Edit{}, err
	}
	if flow {
		return yamledit.Edit{Start: end, End: end, Text: ", " + text}, nil
	}
	at := d.LineEnd(nv.Line)
	line := strings.Repeat(" ", nk.Column-1) + text + "\n"
	if at == len(d.Src) && len(d.Src) > 0 && d.Src[len(d.Src)-1] != '\n' {
		line = "\n" + line
	}
	return yamledit.Edit{Start: at, End: at, Text: line}, nil
}

// replaceValue replaces the value v of key k (a pin) with want, or one
// cluster type's entry of it.
func replaceValue(d *yamledit.Doc, k, v *yaml.Node, flow bool, nodeName, key string, want *fleet.Revision) (yamledit.Edit, error) {
	if want.ByType != nil && v.Kind == yaml.MappingNode && sameKeysButOne(v, want) {
		return typeEdit(d, v, want)
	}
	if yamledit.SingleLineScalar(v) {
		end, err := d.ScalarEnd(v, flow)
		if err != nil {
			return yamledit.Edit{}, err
		}
		return yamledit.Edit{Start: d.Start(v), End: end, Text: revisionText(want, true)}, nil
	}
	if yamledit.IsFlow(v) {
		end, err := d.FlowEnd(v)
		if err != nil {
			return yamledit.Edit{}, err
		}
		return yamledit.Edit{Start: d.Start(v), End: end, Text: revisionText(want, true)}, nil
	}
	if flow {
		return yamledit.Edit{}, fmt.Errorf("node %s: a block %s inside a flow mapping", nodeName, key)
	}
	start := d.LineStart(k.Line)
	prefix := string(d.Src[start:d.Start(k)])
	text := prefix + scalarText(key, false) + ": " + revisionText(want, true) + "\n"
	return yamledit.Edit{Start: start, End: d.LineEnd(yamledit.LastLine(v)), Text: text}, nil
}

// withoutNamed removes revisions.<named> from a node's item, and revisions:
// when that leaves it empty.
func withoutNamed(it *values.Value, named string) *values.Value {
	rv := it.Get("revisions")
	if rv == nil || rv.Kind != values.Map {
		return it
	}
	rv = rv.Delete(named)
	it = it.Delete("revisions")
	if rv.Len() > 0 {
		it.Set("revisions", rv)
	}
	return it
}

// namedPaths returns, as "file: path", the paths of this repository's
// sources that follow the named revision in the changed targets' values
// (targetRevision reading .Values.cluster.revisions.<name>), each with
// the file that set it.
func namedPaths(f *fleet.Fleet, p *Plan) ([]string, map[string]string) {
	ref := ".Values.cluster.revisions." + p.Name
	url := f.Config.Repository.URL
	where := map[string]string{} // path -> the file that names it
	var paths []string
	for _, c := range p.Changes {
		ct := f.ClusterType(c.ClusterType)
		n := f.Config.Find(strings.Split(c.Target, "/"))
		if ct == nil || n == nil {
			continue
		}
		v, err := f.TargetValues(ct, n)
		if err != nil {
			continue // render reports it
		}
		for _, sec := range []struct {
			name string
			spec []string
		}{{"applications", nil}, {"applicationsets", []string{"template", "spec"}}} {
			items := v.Get(sec.name)
			if items == nil || items.Kind != values.Map {
				continue
			}
			for _, item := range items.Vals {
				for _, s := range fleet.Sources(item.Lookup(sec.spec...)) {
					rev, path, repo := s.Get("targetRevision"), s.Get("path"), s.Get("repoURL")
					if rev == nil || path == nil || repo == nil || !strings.Contains(rev.Text, ref) ||
						path.Kind != values.String || strings.Contains(path.Text, "{{") || !sameRepo(repo.Text, url) {
						continue
					}
					if clean := pathpkg.Clean(path.Text); where[clean] == "" {
						where[clean] = path.Pos.String()
						paths = append(paths, clean)
					}
				}
			}
		}
	}
	return paths, where
}
