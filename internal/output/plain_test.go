package output

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Plain manifests (layout.manifests) keep render's guarantees: each
// target's directory holds only the file(s) the layout names, a run with
// nothing changed writes nothing, a change rewrites only the files it
// changes, and a change of the layout removes the files it no longer
// names.
func TestPlainManifests(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()+"/state"
	plain := func(files map[string]string, manifests string) map[string]string {
		return with(files, map[string]string{"config/config.yaml": files["config/config.yaml"] + testLayout + "  manifests: " + manifests + "\n"})
	}
	const prod = "deploy/out/us-east1/prod/mc-manifests/"
	writeFiles(t, dir, plain(fleetV1, "apps.yaml"))
	if _, err := run(t, dir, state, nil); err != nil {
		t.Fatal(err)
	}
	tree := readTree(t, dir, testLayoutRoot)
	want := []string{"deploy/out/eu-west1/prod/mc-manifests/apps.yaml", "deploy/out/us-east1/dev/mc-manifests/apps.yaml", prod + "apps.yaml"}
	var files []string
	for p := range tree {
		if !strings.HasSuffix(p, "/") {
			files = append(files, p)
		}
	}
	slices.Sort(files)
	if d := cmp.Diff(want, files); d != "" {
		t.Fatalf("files (-want +got):\n%s", d)
	}
	apps := tree[prod+"apps.yaml"]
	for _, w := range []string{"name: cert-manager", "targetRevision: v1.14.0", "\n---\n", "name: podinfo"} {
		if !strings.Contains(apps, w) {
			t.Errorf("%sapps.yaml holds no %q:\n%s", prod, w, apps)
		}
	}

	res, err := run(t, dir, state, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Plan.Changes) != 0 {
		t.Errorf("a run with nothing changed: %v", res.Plan.Changes)
	}

	writeFiles(t, dir, map[string]string{"config/mc/cert-manager/prod/override.yaml": "applications:\n  cert-manager:\n    source: {targetRevision: v1.14.2}\n"})
	if res, err = run(t, dir, state, nil); err != nil {
		t.Fatal(err)
	}
	changed := []Change{{Op: Update, Path: "deploy/out/eu-west1/prod/mc-manifests/apps.yaml"}, {Op: Update, Path: prod + "apps.yaml"}}
	if d := cmp.Diff(changed, res.Plan.Changes); d != "" {
		t.Errorf("changes of prod's cert-manager (-want +got):\n%s", d)
	}

	writeFiles(t, dir, map[string]string{"config/config.yaml": plain(fleetV1, "'{name}.yaml'")["config/config.yaml"]})
	if _, err = run(t, dir, state, nil); err != nil {
		t.Fatal(err)
	}
	tree = readTree(t, dir, testLayoutRoot)
	if _, ok := tree[prod+"apps.yaml"]; ok {
		t.Errorf("%sapps.yaml is left after the layout moved to a file per resource", prod)
	}
	for _, name := range []string{"cert-manager.yaml", "podinfo.yaml"} {
		if !strings.Contains(tree[prod+name], "name: "+strings.TrimSuffix(name, ".yaml")) {
			t.Errorf("%s%s = %q", prod, name, tree[prod+name])
		}
	}
}
