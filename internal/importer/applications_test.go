package importer_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/strata-fleet/strata/internal/importer"
	"github.com/strata-fleet/strata/internal/testing/goldenfile"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// importFleet reads dir of fsys in format, builds the fleet and verifies
// it: strata's render and Argo CD's render of its output give the source's
// objects (the differential test every import runs).
func importFleet(t *testing.T, format string, fsys fs.FS, opts importer.Options) *importer.Result {
	t.Helper()
	f, err := importer.Lookup(format)
	if err != nil {
		t.Fatal(err)
	}
	src, err := f.Read(fsys, opts)
	if err != nil {
		t.Fatalf("reading: %v", err)
	}
	res, err := importer.Build(format, src)
	if err != nil {
		t.Fatalf("building: %v", err)
	}
	if err := importer.Verify(res); err != nil {
		t.Fatalf("verifying: %v", err)
	}
	return res
}

// golden writes res as a txtar archive: the report, then every file.
func golden(res *importer.Result) []byte {
	var a txtar.Archive
	var report bytes.Buffer
	for _, f := range res.Findings {
		fmt.Fprintln(&report, f)
	}
	a.Files = append(a.Files, txtar.File{Name: "report", Data: report.Bytes()})
	names := make([]string, 0, len(res.Files))
	for n := range res.Files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		a.Files = append(a.Files, txtar.File{Name: n, Data: res.Files[n]})
	}
	return txtar.Format(&a)
}

// TestApplications imports a repository shaped as vietcgi/infractl's
// apps/gitops/argocd: dev a directory of manifests, prod a kustomization
// with a base, a patch, and files it does not name.
func TestApplications(t *testing.T) {
	res := importFleet(t, "applications", os.DirFS("testdata/applications/infra"), importer.Options{Dir: "gitops/argocd"})
	goldenfile.Check(t, "testdata/applications/infra.golden", golden(res), *update)
	var ids []string
	for _, tg := range res.Source.Targets {
		ids = append(ids, tg.ID())
	}
	if want := []string{"dev", "prod"}; !slices.Equal(ids, want) {
		t.Errorf("targets %v, want %v", ids, want)
	}
}

func TestApplicationsFindings(t *testing.T) {
	res := importFleet(t, "applications", os.DirFS("testdata/applications/infra"), importer.Options{Dir: "gitops/argocd"})
	want := []struct {
		target, object, field, at string
		fault                     bool
	}{
		{"dev", "", "", "gitops/argocd/dev/values.yaml:2", false},
		{"dev", "", "spec.template.spec", "gitops/argocd/dev/system-apps-helm.yaml:30", true},
		{"dev", "Application/root-gitops", "spec.source.path", "gitops/argocd/dev/root-app.yaml:2", false},
		{"dev", "Secret/dev-cluster", "", "gitops/argocd/dev/cluster-secret.yaml:1", false},
		{"prod", "", "", "gitops/argocd/prod/system-applicationset.yaml", true},
		{"prod", "Application/root-gitops", "spec.revisionHistoryLimit", "gitops/argocd/prod/root-app.yaml:18", false},
		{"prod", "Application/root-gitops", "status", "gitops/argocd/prod/root-app.yaml:30", false},
	}
	for _, w := range want {
		found := slices.ContainsFunc(res.Findings, func(f importer.Finding) bool {
			return f.Target == w.target && f.Object == w.object && f.Field == w.field && f.At == w.at && f.Fault == w.fault
		})
		if !found {
			t.Errorf("no finding %+v in\n%s", w, golden(&importer.Result{Findings: res.Findings}))
		}
	}
}

func TestApplicationsErrors(t *testing.T) {
	app := func(name string) string {
		return "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: " + name +
			"\nspec:\n  project: default\n  destination: {server: https://kubernetes.default.svc}\n"
	}
	tests := []struct {
		name  string
		files map[string]string
		want  string // the error, in full
	}{
		{
			name:  "merge-conflict marker",
			files: map[string]string{"argocd/dev/apps.yaml": app("a") + "<<<<<<< HEAD\n  x: 1\n=======\n>>>>>>> main\n"},
			want:  "a merge-conflict marker: <<<<<<< HEAD\n    argocd/dev/apps.yaml:8:1\n    Argo CD cannot read it either: fix it in the repository first",
		},
		{
			name:  "not YAML",
			files: map[string]string{"argocd/dev/apps.yaml": "kind: [\n"},
			want:  "not YAML: did not find expected node content\n    argocd/dev/apps.yaml:1:1\n    Argo CD cannot read it either: fix it in the repository first",
		},
		{
			name: "two objects of one name",
			files: map[string]string{
				"argocd/dev/a.yaml": app("web"),
				"argocd/dev/b.yaml": strings.Replace(app("web"), "kind: Application", "kind: ApplicationSet", 1),
			},
			want: "target dev: Application/web and ApplicationSet/web have one name; strata names each rendered file after its object\n    argocd/dev/b.yaml:1:0\n    argocd/dev/a.yaml:1:0\n    rename one of them",
		},
		{
			name:  "no manifests",
			files: map[string]string{"argocd/README.md": "nothing"},
			want:  "argocd holds no Argo CD manifests: neither it nor a directory in it has a kustomization or .yaml files of objects",
		},
		{
			name: "a remote base",
			files: map[string]string{
				"argocd/dev/kustomization.yaml": "resources:\n  - https://github.com/example/base//apps?ref=v1\n",
			},
			want: "cannot build argocd/dev/kustomization.yaml offline: argocd/dev/kustomization.yaml refers to the remote https://github.com/example/base//apps?ref=v1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := mapFS(tt.files)
			f, _ := importer.Lookup("applications")
			src, err := f.Read(m, importer.Options{Dir: "argocd"})
			if err == nil {
				_, err = importer.Build("applications", src)
			}
			if err == nil {
				t.Fatal("no error")
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("error\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// mapFS makes a file system of files' contents.
func mapFS(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	for n, d := range files {
		m[n] = &fstest.MapFile{Data: []byte(d)}
	}
	return m
}

// TestApplicationsYAML11 checks that plain scalars are read as Argo CD
// reads them (sigs.k8s.io/yaml, YAML 1.1): on, off, y and n are booleans,
// also as keys, 0777 is octal; quoted ones stay strings.
func TestApplicationsYAML11(t *testing.T) {
	set := "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: s}\nspec:\n" +
		"  generators: [{list: {elements: [{n: x, mode: 0777, flag: on, quoted: 'on'}]}}]\n" +
		"  template: {metadata: {name: '{{n}}'}, spec: {project: p, destination: {name: in-cluster}}}\n"
	res := importFleet(t, "applications", mapFS(map[string]string{"argocd/dev/s.yaml": set}), importer.Options{Dir: "argocd"})
	v := string(res.Files["config/argocd/s/values.yaml"])
	for _, want := range []string{`"false": x`, "mode: 511", "flag: true", `quoted: 'on'`} {
		if !strings.Contains(v, want) {
			t.Errorf("values.yaml has no %s:\n%s", want, v)
		}
	}
}

func TestLookupUnknownFormat(t *testing.T) {
	_, err := importer.Lookup("flux")
	if err == nil || !strings.Contains(err.Error(), `unknown format "flux" (formats: applications`) {
		t.Errorf("error %v", err)
	}
}

// TestVerifyCatchesADifference checks that Verify can fail: a file of the
// imported fleet changed after Build renders another object.
func TestVerifyCatchesADifference(t *testing.T) {
	res := importFleet(t, "applications", os.DirFS("testdata/applications/infra"), importer.Options{Dir: "gitops/argocd"})
	p := "config/argocd/root-gitops/values.yaml"
	if _, ok := res.Files[p]; !ok {
		t.Fatalf("no %s in %v", p, slices.Sorted(maps.Keys(res.Files)))
	}
	res.Files[p] = bytes.Replace(res.Files[p], []byte("namespace: argocd"), []byte("namespace: argo"), 1)
	err := importer.Verify(res)
	if !errors.Is(err, importer.ErrMismatch) || !strings.Contains(err.Error(), `target dev: Application root-gitops: metadata.namespace: the source has "argocd", strata renders "argo"`) {
		t.Errorf("Verify: %v", err)
	}
}
