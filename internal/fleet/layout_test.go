package fleet_test

import (
	"errors"
	"io/fs"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/values"
)

// layoutConfig is a config.yaml of two cluster types, one of them only in
// integration (at:), over environments and regions; a layout follows it.
const layoutConfig = `dimensions: [environments, regions]
sequence:
  environments:
    - name: integration
      regions: [eu-west-1, us-east-1]
    - name: staging
      regions: [eu-west-1]
cluster_types:
  - name: regional-cluster
  - name: management-cluster
    at: [integration]
`

func readLayoutConfig(t *testing.T, layout string) (*fleet.Config, error) {
	t.Helper()
	return fleet.ReadConfig(fstest.MapFS{fleet.ConfigPath: {Data: []byte(layoutConfig + layout)}}, nil)
}

// A layout puts every target's output where its pattern says, names the
// output root (its leading fixed directories), and finds the target of a
// path; without one, the output is rendered/<type>/<node path>.
func TestLayoutPlacesEveryTarget(t *testing.T) {
	for _, tc := range []struct {
		name, layout, root string
		dirs               map[string]string // target ID -> directory
	}{
		{"default", "", "rendered", map[string]string{
			"regional-cluster/integration/eu-west-1":   "rendered/regional-cluster/integration/eu-west-1",
			"regional-cluster/integration/us-east-1":   "rendered/regional-cluster/integration/us-east-1",
			"regional-cluster/staging/eu-west-1":       "rendered/regional-cluster/staging/eu-west-1",
			"management-cluster/integration/eu-west-1": "rendered/management-cluster/integration/eu-west-1",
			"management-cluster/integration/us-east-1": "rendered/management-cluster/integration/us-east-1",
		}},
		{"the regional platform's", "layout:\n  path: argocd/rendered/{environment}/{region}/{clusterType}-manifests\n", "argocd/rendered", map[string]string{
			"regional-cluster/integration/eu-west-1":   "argocd/rendered/integration/eu-west-1/regional-cluster-manifests",
			"regional-cluster/integration/us-east-1":   "argocd/rendered/integration/us-east-1/regional-cluster-manifests",
			"regional-cluster/staging/eu-west-1":       "argocd/rendered/staging/eu-west-1/regional-cluster-manifests",
			"management-cluster/integration/eu-west-1": "argocd/rendered/integration/eu-west-1/management-cluster-manifests",
			"management-cluster/integration/us-east-1": "argocd/rendered/integration/us-east-1/management-cluster-manifests",
		}},
		{"plural names, fixed text around them", "layout: {path: 'out/{clusterType}/env-{environments}/{regions}.d'}\n", "out", map[string]string{
			"regional-cluster/integration/eu-west-1":   "out/regional-cluster/env-integration/eu-west-1.d",
			"regional-cluster/integration/us-east-1":   "out/regional-cluster/env-integration/us-east-1.d",
			"regional-cluster/staging/eu-west-1":       "out/regional-cluster/env-staging/eu-west-1.d",
			"management-cluster/integration/eu-west-1": "out/management-cluster/env-integration/eu-west-1.d",
			"management-cluster/integration/us-east-1": "out/management-cluster/env-integration/us-east-1.d",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := readLayoutConfig(t, tc.layout)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.OutputRoot(); got != tc.root {
				t.Errorf("OutputRoot = %q, want %q", got, tc.root)
			}
			for id, dir := range tc.dirs {
				got, ok := c.TargetDirOf(id)
				if !ok || got != dir {
					t.Errorf("TargetDirOf(%s) = %q, %v; want %q", id, got, ok, dir)
				}
				for _, p := range []string{dir, dir + "/templates/a.yaml"} {
					if tg, ok := c.TargetAt(p); !ok || tg.ID() != id {
						t.Errorf("TargetAt(%s) = %v, %v; want %s", p, tg, ok, id)
					}
				}
			}
			for _, p := range []string{tc.root, tc.root + "/README.md", "config/config.yaml", tc.root + "/management-cluster/staging/eu-west-1"} {
				if tg, ok := c.TargetAt(p); ok {
					t.Errorf("TargetAt(%s) = %s, want no target", p, tg.ID())
				}
			}
			if _, ok := c.TargetDirOf("management-cluster/staging/nowhere"); ok {
				t.Errorf("TargetDirOf finds a target config.yaml does not have")
			}
		})
	}
}

// NodeDirs are the directories that hold exactly the output of a node's
// targets: the node's own directory in the default layout, else each
// target's.
func TestLayoutNodeDirs(t *testing.T) {
	for _, tc := range []struct {
		name, layout, ct, node string
		want                   []string
	}{
		{"default, a node", "", "regional-cluster", "integration", []string{"rendered/regional-cluster/integration"}},
		{"default, every node", "", "regional-cluster", "", []string{"rendered/regional-cluster"}},
		{"layout, a node", "layout: {path: 'argocd/rendered/{environment}/{region}/{clusterType}-manifests'}\n", "regional-cluster", "integration",
			[]string{"argocd/rendered/integration/eu-west-1/regional-cluster-manifests", "argocd/rendered/integration/us-east-1/regional-cluster-manifests"}},
		{"layout, every node, at:", "layout: {path: 'argocd/rendered/{environment}/{region}/{clusterType}-manifests'}\n", "management-cluster", "",
			[]string{"argocd/rendered/integration/eu-west-1/management-cluster-manifests", "argocd/rendered/integration/us-east-1/management-cluster-manifests"}},
		{"layout, a target", "layout: {path: 'argocd/rendered/{environment}/{region}/{clusterType}-manifests'}\n", "regional-cluster", "staging/eu-west-1",
			[]string{"argocd/rendered/staging/eu-west-1/regional-cluster-manifests"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := readLayoutConfig(t, tc.layout)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := c.NodeDirs(tc.ct, tc.node)
			if !ok {
				t.Fatalf("NodeDirs(%s, %s) finds no node", tc.ct, tc.node)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("NodeDirs (-want +got):\n%s", diff)
			}
		})
	}
}

// A layout that cannot work is an error at config.yaml's line, saying
// what is wrong.
func TestLayoutErrors(t *testing.T) {
	const line = "config/config.yaml:13:" // the line of layout's path
	for _, tc := range []struct {
		name, layout string
		want         []string // in the error's text
	}{
		{"unknown placeholder", "layout:\n  path: out/{clusterType}/{enviroment}/{region}\n", //nolint:misspell // the typo is the test
			[]string{"layout.path: unknown placeholder {enviroment} (did you mean {environment}?)", line, "placeholders: {clusterType}, {environment}, {region}"}}, //nolint:misspell // the typo is the test
		{"two targets, one directory", "layout:\n  path: out/{clusterType}/{region}\n",
			[]string{"the layout gives targets regional-cluster/integration/eu-west-1 and regional-cluster/staging/eu-west-1 one directory, out/regional-cluster/eu-west-1", line}},
		{"no cluster type, two cluster types", "layout:\n  path: out/{environment}/{region}\n",
			[]string{"one directory, out/integration/eu-west-1", "{clusterType}"}},
		{"escapes the repository", "layout:\n  path: ../elsewhere/{clusterType}/{environment}/{region}\n",
			[]string{`has a ".." segment: it must stay inside the repository`, line}},
		{"a dot segment", "layout:\n  path: out/./{clusterType}/{environment}/{region}\n", []string{`has a "." segment`}},
		{"absolute", "layout:\n  path: /srv/{clusterType}/{environment}/{region}\n", []string{"is absolute", line}},
		{"empty segment", "layout:\n  path: out//{clusterType}/{environment}/{region}\n", []string{"has an empty segment"}},
		{"backslash", "layout:\n  path: 'out\\{clusterType}/{environment}/{region}'\n", []string{"holds '\\'"}},
		{"overlaps config/", "layout:\n  path: config/rendered/{clusterType}/{environment}/{region}\n", []string{"output root config/rendered/ overlaps config/", line}},
		{"is config/", "layout:\n  path: config/{clusterType}/{environment}/{region}\n", []string{"output root config/ overlaps config/"}},
		{"the templates chart", "layout:\n  path: argocd-apps/{clusterType}/{environment}/{region}\n", []string{"overlaps argocd-apps/"}},
		{"git's data", "layout:\n  path: .git/{clusterType}/{environment}/{region}\n", []string{"overlaps .git/"}},
		{"hidden root", "layout:\n  path: .out/{clusterType}/{environment}/{region}\n", []string{`hidden directory ".out"`}},
		{"starts with a placeholder", "layout:\n  path: '{clusterType}/{environment}/{region}'\n", []string{"starts with a placeholder: render needs a directory of its own", line}},
		{"no placeholder", "layout:\n  path: out/all\n", []string{"has no placeholder"}},
		{"placeholders side by side", "layout:\n  path: 'out/{clusterType}/{environment}{region}'\n", []string{"two placeholders side by side"}},
		{"unclosed", "layout:\n  path: 'out/{clusterType}/{environment/{region}'\n", []string{"a '{' without its '}'"}},
		{"stray brace", "layout:\n  path: 'out/{clusterType}/environment}/{region}'\n", []string{"a '}' without its '{'"}},
		{"not a string", "layout:\n  path: [out]\n", []string{"layout.path: expected a string"}},
		{"not a mapping", "layout: out/{clusterType}\n", []string{"layout: expected a mapping"}},
		{"unknown key", "layout:\n  path: out/{clusterType}/{environment}/{region}\n  paht: x\n", []string{`layout.paht: unknown key`, `did you mean "path"?`}},
		{"no path", "layout: {}\n", []string{"layout: missing key path"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readLayoutConfig(t, tc.layout)
			if err == nil {
				t.Fatal("no error")
			}
			if _, ok := errors.AsType[*values.Error](err); !ok {
				t.Errorf("error %T, want a *values.Error (file and line)", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%v\nwant it to contain %q", err, w)
				}
			}
		})
	}
}

// The journal of an interrupted render names its output root; a root that
// a layout could not have is refused there too (package output).
func TestCheckOutputRoot(t *testing.T) {
	for root, ok := range map[string]bool{
		"rendered": true, "argocd/rendered": true, "deploy/out": true,
		"": false, ".": false, "..": false, "../x": false, "/abs": false, "a//b": false,
		"config": false, "config/x": false, ".git": false, ".strata-render": false, "argocd-apps": false, "x/.hidden": false,
	} {
		if err := fleet.CheckOutputRoot(root); (err == nil) != ok {
			t.Errorf("CheckOutputRoot(%q) = %v, want ok %v", root, err, ok)
		}
	}
}

// FuzzLayout: whatever layout path config.yaml holds, ReadConfig either
// refuses it with a positioned error or accepts a layout whose every
// target's directory is a clean path under the output root, distinct from
// every other target's (case-folded), that TargetAt maps back to the
// target.
func FuzzLayout(f *testing.F) {
	for _, s := range []string{
		"argocd/rendered/{environment}/{region}/{clusterType}-manifests",
		"out/{clusterType}/{environments}/{regions}",
		"out/{clusterType}/env-{environment}.{region}",
		"out/{region}", "{clusterType}/x", "out/{a}", "../x/{region}", "out//{region}", "config/{clusterType}",
		"out/{clusterType}/{environment}{region}", "out/{", "out/}", "out/{clusterType}/{environment}/{region}/",
		"a b/{clusterType}/{environment}/{region}", "out/\x00/{region}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, path string) {
		doc := layoutConfig + "layout:\n  path: " + strconv.Quote(path) + "\n"
		c, err := fleet.ReadConfig(fstest.MapFS{fleet.ConfigPath: {Data: []byte(doc)}}, nil)
		if err != nil {
			var ve *values.Error
			if errors.As(err, &ve) && ve.Pos.File == "" {
				t.Fatalf("an error without a file: %v", err)
			}
			return
		}
		if c.Layout == nil {
			t.Fatalf("layout.path %q accepted, but no layout", path)
		}
		root := c.OutputRoot()
		if err := fleet.CheckOutputRoot(root); err != nil {
			t.Fatalf("accepted output root %q: %v", root, err)
		}
		seen := map[string]string{}
		for _, id := range []string{
			"regional-cluster/integration/eu-west-1", "regional-cluster/integration/us-east-1", "regional-cluster/staging/eu-west-1",
			"management-cluster/integration/eu-west-1", "management-cluster/integration/us-east-1",
		} {
			dir, ok := c.TargetDirOf(id)
			if !ok {
				t.Fatalf("no directory for %s", id)
			}
			if !fs.ValidPath(dir) || !strings.HasPrefix(dir, root+"/") {
				t.Fatalf("%s's directory %q is not a clean path under %s", id, dir, root)
			}
			if prev, ok := seen[strings.ToLower(dir)]; ok {
				t.Fatalf("%s and %s share %s", prev, id, dir)
			}
			seen[strings.ToLower(dir)] = id
			if tg, ok := c.TargetAt(dir + "/Chart.yaml"); !ok || tg.ID() != id {
				t.Fatalf("TargetAt(%s/Chart.yaml) = %v, %v; want %s", dir, tg, ok, id)
			}
		}
	})
}

// The regional platform's values files: one per target, beside its
// directory under the output root, found by TargetAt and listed with the
// target's directory by NodeDirs.
func TestLayoutValuesFiles(t *testing.T) {
	c, err := readLayoutConfig(t, `layout:
  path: argocd/rendered/{environment}/{region}/{clusterType}-manifests
  values: {path: 'argocd/rendered/{environment}/{region}/{clusterType}-values.yaml', section: values}
`)
	if err != nil {
		t.Fatal(err)
	}
	n := c.Find([]string{"integration", "eu-west-1"})
	if got, want := c.Layout.ValuesFile("regional-cluster", n), "argocd/rendered/integration/eu-west-1/regional-cluster-values.yaml"; got != want {
		t.Errorf("ValuesFile = %q, want %q", got, want)
	}
	if got := c.Layout.ValuesSection(); got != "values" {
		t.Errorf("ValuesSection = %q, want values", got)
	}
	if tg, ok := c.TargetAt("argocd/rendered/integration/eu-west-1/regional-cluster-values.yaml"); !ok || tg.ID() != "regional-cluster/integration/eu-west-1" {
		t.Errorf("TargetAt(values file) = %v, %v, want regional-cluster/integration/eu-west-1", tg, ok)
	}
	dirs, _ := c.NodeDirs("regional-cluster", "staging")
	want := []string{"argocd/rendered/staging/eu-west-1/regional-cluster-manifests", "argocd/rendered/staging/eu-west-1/regional-cluster-values.yaml"}
	if d := cmp.Diff(want, dirs); d != "" {
		t.Errorf("NodeDirs (-want +got):\n%s", d)
	}
	plain, err := readLayoutConfig(t, "layout:\n  path: argocd/rendered/{environment}/{region}/{clusterType}-manifests\n")
	if err != nil {
		t.Fatal(err)
	}
	if f := plain.Layout.ValuesFile("regional-cluster", n); f != "" {
		t.Errorf("a layout without values: ValuesFile = %q, want none", f)
	}
}

func TestLayoutValuesErrors(t *testing.T) {
	const path = "layout:\n  path: out/{environment}/{region}/{clusterType}/{region}/x\n"
	for _, tc := range []struct {
		name, values string
		want         []string
	}{
		{"outside the output root", "  values: {path: 'values/{environment}/{region}/{clusterType}.yaml', section: values}\n",
			[]string{"layout.values.path:", "is not under the output root out/", "config/config.yaml:14:"}},
		{"two targets, one file", "  values: {path: 'out/{environment}/{clusterType}.yaml', section: values}\n",
			[]string{"one directory, out/integration/regional-cluster.yaml"}},
		{"inside a target's directory", "  values: {path: 'out/{environment}/{region}/{clusterType}/{region}/x/values.yaml', section: values}\n",
			[]string{"the values file of regional-cluster/integration/eu-west-1, out/integration/eu-west-1/regional-cluster/eu-west-1/x/values.yaml, is inside the directory of target regional-cluster/integration/eu-west-1"}},
		{"holds a target's directory", "  values: {path: 'out/{environment}/{region}/{clusterType}/{region}', section: values}\n",
			[]string{"holds the directory of target"}},
		{"a section of resources", "  values: {path: 'out/{environment}/{region}/{clusterType}.yaml', section: applications}\n",
			[]string{"layout.values.section:", `"applications" cannot be the values file's section`}},
		{"no section", "  values: {path: 'out/{environment}/{region}/{clusterType}.yaml'}\n", []string{"layout.values: missing key section"}},
		{"unknown key", "  values: {path: 'out/{environment}/{region}/{clusterType}.yaml', section: values, sectoin: x}\n", []string{"layout.values.sectoin: unknown key"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readLayoutConfig(t, path+tc.values)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%v\nwant it to contain %q", err, w)
				}
			}
		})
	}
}

// Two components of a cluster type cannot both define a key of the values
// file: the merge would hide one, silently.
func TestLayoutValuesKeyOfTwoComponents(t *testing.T) {
	fsys := fstest.MapFS{
		fleet.ConfigPath:                          {Data: []byte(layoutConfig + "layout:\n  path: out/{environment}/{region}/{clusterType}\n  values: {path: 'out/{environment}/{region}/{clusterType}.yaml', section: values}\n")},
		"config/regional-cluster/defaults.yaml":   {Data: []byte("values:\n  default: {}\n")},
		"config/regional-cluster/a/values.yaml":   {Data: []byte("values:\n  frontendApi: {replicas: 1}\n")},
		"config/regional-cluster/b/values.yaml":   {Data: []byte("values:\n  frontendApi: {replicas: 2}\n")},
		"config/management-cluster/defaults.yaml": {Data: []byte("values:\n  default: {}\n")},
		"config/management-cluster/c/values.yaml": {Data: []byte("values:\n  hypershift: {}\n")},
	}
	f, err := fleet.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	ct := f.ClusterType("regional-cluster")
	_, err = f.TargetValues(ct, ct.Targets[0])
	if err == nil || !strings.Contains(err.Error(), `components "a" and "b" both define the key "frontendApi" of the values file`) {
		t.Fatalf("TargetValues: %v, want the two components named", err)
	}
}
