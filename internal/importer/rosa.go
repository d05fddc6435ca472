package importer

import (
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/strata-fleet/strata/internal/values"
)

// The rosa-shards format: openshift-online/rosa-regional-platform's
// argocd/ directory. config.yaml lists the shards (environment, region,
// config_revision per cluster type, values per cluster type);
// config/<type>-cluster/ directories are the cluster types (render.py
// discovers them: names ending in "cluster"); render.py writes, per shard
// and cluster type, rendered/<env>/<region>/<type>-manifests/
// applicationset.yaml (config/applicationset/base-applicationset.yaml with
// the shard's config_revision, when set, as the git generator's revision
// and the chart source's targetRevision) and <type>-values.yaml (the
// shard's values merged: global, then keys that name no cluster type, then
// the cluster type's). Each shard and cluster type is a target, in
// dimensions environments and regions; its objects are the ApplicationSet
// render.py writes, derived here by the same rules.

// rosaManifests is the one file render.py writes in each target's
// directory: strata writes it too (layout.manifests), plain.
const rosaManifests = "applicationset.yaml"

// rosaRevision is the named revision a shard's config_revision becomes:
// the charts' revision, pinned per node, the values live.
const rosaRevision = "charts"

// rosaValues is render.py's render_shard_values for cluster type ct: the
// shard's global values, then its keys that name no cluster type, then
// ct's, merged (mappings key by key, the rest replaced); an empty mapping
// when the shard has none.
func rosaValues(vals *yaml.Node, ct string, types []string) *yaml.Node {
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	if vals == nil || vals.Kind != yaml.MappingNode {
		return out
	}
	out = deepMerge(out, get(vals, "global"))
	top := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for i := 0; i+1 < len(vals.Content); i += 2 {
		if k := vals.Content[i].Value; k != "global" && !slices.Contains(types, k) {
			top.Content = append(top.Content, vals.Content[i], vals.Content[i+1])
		}
	}
	return deepMerge(deepMerge(out, top), get(vals, ct))
}

// deepMerge is render.py's deep_merge: overlay's keys over base's, mappings
// merged recursively, anything else replaced. A nil or non-mapping
// overlay leaves base.
func deepMerge(base, overlay *yaml.Node) *yaml.Node {
	if overlay == nil || overlay.Kind != yaml.MappingNode {
		return base
	}
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: slices.Clone(base.Content)}
	for i := 0; i+1 < len(overlay.Content); i += 2 {
		k, v := overlay.Content[i], overlay.Content[i+1]
		j := -1
		for x := 0; x+1 < len(out.Content); x += 2 {
			if out.Content[x].Value == k.Value {
				j = x
			}
		}
		switch {
		case j < 0:
			out.Content = append(out.Content, k, v)
		case out.Content[j+1].Kind == yaml.MappingNode && v.Kind == yaml.MappingNode:
			out.Content[j+1] = deepMerge(out.Content[j+1], v)
		default:
			out.Content[j+1] = v
		}
	}
	return out
}

// commitHash is render.py's check of a config_revision.
var commitHash = regexp.MustCompile(`^[a-f0-9]{7,40}$`)

func readRosaShards(fsys fs.FS, opts Options) (*Source, error) {
	dir := path.Clean(opts.Dir)
	cfgFile := path.Join(dir, "config.yaml")
	data, err := fs.ReadFile(fsys, cfgFile)
	if err != nil {
		return nil, fmt.Errorf("%s: no shards file: %w", opts.show(cfgFile), err)
	}
	docs, dups, err := readDocuments(cfgFile, data)
	if err != nil {
		return nil, err
	}
	src := &Source{Dimensions: opts.Dimensions, Findings: dups}
	if src.Dimensions == nil {
		src.Dimensions = []string{"environments", "regions"}
	}
	if len(src.Dimensions) != 2 {
		return nil, fmt.Errorf("the rosa-shards format makes two dimensions (environment, region), not %d", len(src.Dimensions))
	}
	var shards *yaml.Node
	if len(docs) > 0 {
		shards = get(docs[0].node, "shards")
	}
	if shards == nil || shards.Kind != yaml.SequenceNode || len(shards.Content) == 0 {
		return nil, &values.Error{Pos: values.Pos{File: cfgFile, Line: 1, Col: 1}, Path: []string{"shards"}, Msg: "no shards (a list of environment, region, values)"}
	}
	types, err := rosaTypes(fsys, dir)
	if err != nil {
		return nil, err
	}
	base, err := rosaBase(fsys, dir)
	if err != nil {
		return nil, err
	}
	seen := map[string]int{}
	for i, sh := range shards.Content {
		env, region := str(sh, "environment"), str(sh, "region")
		pos := values.Pos{File: cfgFile, Line: sh.Line, Col: sh.Column}
		if sh.Kind != yaml.MappingNode || env == "" || region == "" {
			return nil, &values.Error{Pos: pos, Path: []string{"shards", fmt.Sprint(i)}, Msg: "a shard needs an environment and a region"}
		}
		if prev, ok := seen[env+"/"+region]; ok {
			return nil, &values.Error{Pos: pos, Also: []values.Pos{{File: cfgFile, Line: prev}}, Path: []string{"shards", fmt.Sprint(i)},
				Msg: fmt.Sprintf("a second shard for %s in %s (render.py refuses it too)", region, env)}
		}
		seen[env+"/"+region] = sh.Line
		revs := get(sh, "config_revision")
		for j := 0; revs != nil && j+1 < len(revs.Content); j += 2 {
			k, v := revs.Content[j], revs.Content[j+1]
			if v.Value != "" && !commitHash.MatchString(v.Value) {
				return nil, &values.Error{Pos: values.Pos{File: cfgFile, Line: v.Line, Col: v.Column}, Path: []string{"shards", fmt.Sprint(i), "config_revision", k.Value},
					Msg: fmt.Sprintf("%q is not a commit hash (7 to 40 hexadecimal digits; render.py refuses it too)", v.Value)}
			}
			if !slices.Contains(types, k.Value) {
				src.Findings = append(src.Findings, Finding{Target: env + "/" + region, Field: "config_revision." + k.Value, Fault: true,
					At: fmt.Sprintf("%s:%d", cfgFile, k.Line), Reason: "names no cluster type (config/ has " + strings.Join(types, ", ") + "): render.py ignores it"})
			}
		}
		vals := get(sh, "values")
		for j := 0; vals != nil && j+1 < len(vals.Content); j += 2 {
			k := vals.Content[j]
			if k.Value != "global" && !slices.Contains(types, k.Value) {
				src.Findings = append(src.Findings, Finding{Target: env + "/" + region, Field: "values." + k.Value, Fault: true,
					At: fmt.Sprintf("%s:%d", cfgFile, k.Line), Reason: "names no cluster type (config/ has " + strings.Join(types, ", ") + "): render.py merges it into every cluster type's values as a key " + k.Value})
			}
		}
		for _, ct := range types {
			t := &Target{ClusterType: ct, Path: []string{env, region}, Dir: path.Join(dir, "rendered", env, region, ct+"-manifests")}
			set := rosaApplicationSet(base, str(revs, ct))
			o, err := objectOf(document{file: path.Join(dir, "config/applicationset/base-applicationset.yaml"), node: set})
			if err != nil {
				return nil, err
			}
			o.Written = nil
			t.Objects = []*Object{o}
			t.Values = rosaValues(vals, ct, types)
			if rev := str(revs, ct); rev != "" {
				t.Pins = map[string]string{rosaRevision: rev}
			}
			src.Targets = append(src.Targets, t)
		}
	}
	src.Revisions = []string{rosaRevision}
	d0, d1 := singular(src.Dimensions[0]), singular(src.Dimensions[1])
	src.Layout = mapping(
		"path", path.Join(dir, "rendered", "{"+d0+"}", "{"+d1+"}", "{clusterType}-manifests"),
		"manifests", rosaManifests,
		"values", mapping("path", path.Join(dir, "rendered", "{"+d0+"}", "{"+d1+"}", "{clusterType}-values.yaml"), "section", ValuesSection),
	)
	return src, nil
}

// rosaTypes lists the cluster types as render.py finds them: directories
// of config/ whose name ends in "cluster" and does not start with a dot.
func rosaTypes(fsys fs.FS, dir string) ([]string, error) {
	entries, err := fs.ReadDir(fsys, path.Join(dir, "config"))
	if err != nil {
		return nil, err
	}
	var types []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && strings.HasSuffix(e.Name(), "cluster") {
			types = append(types, e.Name())
		}
	}
	if len(types) == 0 {
		return nil, fmt.Errorf("%s/config has no cluster types (directories named *cluster)", dir)
	}
	sort.Strings(types)
	return types, nil
}

// rosaBase reads the base ApplicationSet.
func rosaBase(fsys fs.FS, dir string) (*yaml.Node, error) {
	file := path.Join(dir, "config/applicationset/base-applicationset.yaml")
	data, err := fs.ReadFile(fsys, file)
	if err != nil {
		return nil, fmt.Errorf("the base ApplicationSet: %w", err)
	}
	docs, _, err := readDocuments(file, data)
	if err != nil {
		return nil, err
	}
	if len(docs) != 1 {
		return nil, &values.Error{Pos: values.Pos{File: file, Line: 1, Col: 1}, Msg: fmt.Sprintf("%d documents, want the one ApplicationSet", len(docs))}
	}
	return docs[0].node, nil
}

// rosaApplicationSet is render.py's create_applicationset_template: the
// base, with rev (when set) as the revision of the matrix's first git
// generator and the targetRevision of each source that has one and no ref.
func rosaApplicationSet(base *yaml.Node, rev string) *yaml.Node {
	set := deepCopy(base)
	if rev == "" {
		return set
	}
	gens := lookup(set, []string{"spec", "generators"})
	if gens != nil && len(gens.Content) > 0 {
		for _, g := range lookupSeqNodes(lookup(gens.Content[0], []string{"matrix", "generators"})) {
			if git := get(g, "git"); git != nil {
				setScalar(git, "revision", rev)
				break
			}
		}
	}
	for _, s := range lookupSeqNodes(lookup(set, []string{"spec", "template", "spec", "sources"})) {
		if get(s, "targetRevision") != nil && get(s, "ref") == nil {
			setScalar(s, "targetRevision", rev)
		}
	}
	return set
}

func lookupSeqNodes(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}

// setScalar sets key of mapping m to the string v.
func setScalar(m *yaml.Node, key, v string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}
			return
		}
	}
	m.Content = append(m.Content, scalar(key), &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v})
}

func deepCopy(n *yaml.Node) *yaml.Node {
	c := *n
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, k := range n.Content {
		c.Content[i] = deepCopy(k)
	}
	return &c
}
