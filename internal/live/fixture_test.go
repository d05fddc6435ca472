package live_test

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/output"
	"github.com/strata-fleet/strata/internal/render"
	"github.com/strata-fleet/strata/internal/testing/testfleet"
	"github.com/strata-fleet/strata/internal/testing/testgit"
)

// fixture is the test fleet (built-in chart) with an inventory of clusters
// that run their own Argo CD, rendered and committed twice: c1 is the
// fleet, c2 a patch that changes cert-manager in integration only.
type fixture struct {
	dir    string
	c1, c2 string
}

const inventory = `mc-int: integration/int-sector-1/us-central1
mc-stage: stage/stage-sector-1/us-east1
mc-down: production/prod-canary/us-east1
`

func newFixture(t *testing.T) *fixture {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	if err := testfleet.Write(dir); err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(strings.TrimSpace(inventory), "\n") {
		name, target, _ := strings.Cut(line, ": ")
		write(t, dir, "config/clusters/"+name+".yaml", "type: management-cluster\ntarget: "+target+"\n")
	}
	renderFleet(t, dir)
	fx := &fixture{dir: dir}
	testgit.Run(t, dir, "init", "-q", "-b", "main")
	testgit.Run(t, dir, "add", ".")
	testgit.Run(t, dir, "commit", "-q", "-m", "fleet")
	fx.c1 = strings.TrimSpace(testgit.Run(t, dir, "rev-parse", "HEAD"))
	write(t, dir, "config/management-cluster/cert-manager/integration/patch-003.yaml",
		"applications:\n  cert-manager:\n    source:\n      targetRevision: v1.20.0\n")
	renderFleet(t, dir)
	testgit.Run(t, dir, "add", ".")
	testgit.Run(t, dir, "commit", "-q", "-m", "cert-manager v1.20.0 in integration")
	fx.c2 = strings.TrimSpace(testgit.Run(t, dir, "rev-parse", "HEAD"))
	return fx
}

func renderFleet(t *testing.T, dir string) {
	t.Helper()
	if _, err := output.Run(output.Options{Root: dir, FS: os.DirFS(dir)}); err != nil {
		t.Fatal(err)
	}
}

func (fx *fixture) renderer(t *testing.T) *render.Renderer {
	t.Helper()
	r, err := render.Load(os.DirFS(fx.dir))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func write(t testing.TB, dir, file, data string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(file))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// renderedSpec is the spec of a rendered Application of the fixture.
func (fx *fixture) renderedSpec(t *testing.T, file string) map[string]any {
	t.Helper()
	spec, _ := fx.renderedDoc(t, file)["spec"].(map[string]any)
	return spec
}

// renderedDoc is a rendered object of the fixture.
func (fx *fixture) renderedDoc(t *testing.T, file string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fx.dir, filepath.FromSlash(file)))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// status is what a test sets of an Application's status.
type status struct {
	sync, health, healthMsg, revision string
	phase, message                    string
	// stale makes Argo CD's last comparison one of another source.
	stale     bool
	resources []map[string]any
	history   string
}

// application is a live Application with spec and the status st, as Argo
// CD's application controller would write it.
func application(name string, spec map[string]any, st status) *unstructured.Unstructured {
	compared := map[string]any{"source": spec["source"], "sources": spec["sources"], "destination": spec["destination"]}
	if st.stale {
		compared = map[string]any{"source": map[string]any{"repoURL": "https://elsewhere.example.com"}, "destination": spec["destination"]}
	}
	stat := map[string]any{
		"sync":   map[string]any{"status": st.sync, "revision": st.revision, "comparedTo": compared},
		"health": map[string]any{"status": st.health},
	}
	if st.healthMsg != "" {
		stat["health"].(map[string]any)["message"] = st.healthMsg
	}
	if st.phase != "" {
		stat["operationState"] = map[string]any{"phase": st.phase, "message": st.message,
			"operation": map[string]any{"sync": map[string]any{"revision": st.revision}}, "startedAt": "2026-01-01T00:00:00Z"}
	}
	if st.resources != nil {
		var rs []any
		for _, r := range st.resources {
			rs = append(rs, r)
		}
		stat["resources"] = rs
	}
	if st.history != "" {
		stat["history"] = []any{map[string]any{"id": int64(0), "revision": st.history, "deployedAt": "2026-01-01T00:00:00Z"}}
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "argoproj.io/v1alpha1",
		"kind":       "Application",
		"metadata":   map[string]any{"name": name},
		"spec":       spec,
		"status":     stat,
	}}
}

// create creates objects in namespace ns, their status included.
func create(t *testing.T, dyn dynamic.Interface, ns string, objs ...*unstructured.Unstructured) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, o := range objs {
		gvr := live.ApplicationGVR
		if o.GetKind() == "ApplicationSet" {
			gvr = live.ApplicationSetGVR
		}
		status := o.Object["status"]
		got, err := dyn.Resource(gvr).Namespace(ns).Create(ctx, o, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("creating %s %s: %v", o.GetKind(), o.GetName(), err)
		}
		if _, ok := got.Object["status"]; !ok && status != nil {
			got.Object["status"] = status
			if _, err := dyn.Resource(gvr).Namespace(ns).UpdateStatus(ctx, got, metav1.UpdateOptions{}); err != nil {
				t.Fatalf("setting the status of %s %s: %v", o.GetKind(), o.GetName(), err)
			}
		}
	}
}

// fsys is the fixture's fleet repository.
func (fx *fixture) fsys() fs.FS { return os.DirFS(fx.dir) }
