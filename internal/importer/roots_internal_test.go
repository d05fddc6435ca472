package importer

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/strata-fleet/strata/internal/fleet"
)

// Verify compares each source root with the root config.yaml's roots:
// gives its target: the same root passes (integers of syncPolicy as JSON
// has them on both sides); another name, project or syncPolicy is named.
func TestCompareRoot(t *testing.T) {
	const root = `kind: Application
apiVersion: argoproj.io/v1alpha1
metadata: {name: dev-01-bootstrap-apps, namespace: argocd}
spec:
  project: operations
  syncPolicy:
    automated: {prune: true}
    retry: {limit: 5}
`
	docs, _, err := readDocuments("bootstrap/dev-01.yaml", []byte(root))
	if err != nil {
		t.Fatal(err)
	}
	obj, err := objectOf(docs[0])
	if err != nil {
		t.Fatal(err)
	}
	target := &Target{Path: []string{"dev", "dev-01"}, Root: obj}
	const cfg = "dimensions: [environments, clusters]\nsequence:\n  environments:\n    - name: dev\n      clusters: [dev-01]\ncluster_types: [app-of-apps]\n"
	for _, tc := range []struct {
		name, roots string
		want        []string
	}{
		{name: "kept", roots: "roots: {kind: Application, name: '{cluster}-bootstrap-apps', project: operations, syncPolicy: {automated: {prune: true}, retry: {limit: 5}}}\n"},
		{name: "other name and kind", roots: "roots: {name: '{cluster}-apps', project: operations, syncPolicy: {automated: {prune: true}, retry: {limit: 5}}}\n",
			want: []string{`kind "Application", strata's "ApplicationSet"`, `name "dev-01-bootstrap-apps", strata's "dev-01-apps"`}},
		{name: "other project and syncPolicy", roots: "roots: {kind: Application, name: '{cluster}-bootstrap-apps', syncPolicy: {automated: {prune: false}, retry: {limit: 5}}}\n",
			want: []string{`project "operations", strata's "default"`, "syncPolicy.automated.prune: the source has true, strata renders false"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := fleet.ReadConfig(fstest.MapFS{fleet.ConfigPath: {Data: []byte(cfg + tc.roots)}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := compareRoot(c, "app-of-apps", target)
			if len(got) != len(tc.want) {
				t.Fatalf("problems %q, want %d", got, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %q, want one containing %q", got[i], w)
				}
			}
		})
	}
}

// roots: is written only where one kind, name pattern, project and
// syncPolicy keep every target's root; otherwise the reason is reported.
func TestRootsConfig(t *testing.T) {
	root := func(name, project, sync string) *Object {
		docs, _, err := readDocuments("root.yaml", []byte("kind: Application\napiVersion: argoproj.io/v1alpha1\nmetadata: {name: "+name+"}\nspec: {project: "+project+", syncPolicy: "+sync+"}\n"))
		if err != nil {
			t.Fatal(err)
		}
		o, err := objectOf(docs[0])
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	targets := []*Target{{Path: []string{"dev", "dev-01"}}, {Path: []string{"ops", "ops-01"}}}
	for _, tc := range []struct {
		name  string
		roots []*Object
		want  string // the name written, or the reason
	}{
		{name: "a pattern", roots: []*Object{root("dev-01-apps", "ops", "{prune: true}"), root("ops-01-apps", "ops", "{prune: true}")}, want: "{cluster}-apps"},
		{name: "no pattern", roots: []*Object{root("dev-01-apps", "ops", "{}"), root("main", "ops", "{}")}, want: "the roots' names follow no one pattern (dev-01-apps, main)"},
		{name: "projects", roots: []*Object{root("dev-01-apps", "ops", "{}"), root("ops-01-apps", "dev", "{}")}, want: "the roots are in different projects (ops, dev)"},
		{name: "syncPolicies", roots: []*Object{root("dev-01-apps", "ops", "{prune: true}"), root("ops-01-apps", "ops", "{prune: false}")}, want: "the roots' syncPolicies differ"},
		{name: "one name", roots: []*Object{root("apps", "ops", "{}"), root("apps", "ops", "{}")}, want: "the roots share one name, apps"},
		{name: "a target without", roots: []*Object{root("dev-01-apps", "ops", "{}")}, want: "not every target has a root"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, why := rootsConfig(targets, tc.roots)
			got := why
			if n != nil {
				got = str(n, "name")
			}
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
