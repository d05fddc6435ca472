package web_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/testing/testfleet"
	"github.com/strata-fleet/strata/internal/testing/testgit"
	"github.com/strata-fleet/strata/internal/web"
)

// serve writes the test fleet into a directory and serves it.
func serve(t *testing.T) (*web.Server, *httptest.Server, string) {
	t.Helper()
	dir := t.TempDir()
	if err := testfleet.Write(dir); err != nil {
		t.Fatal(err)
	}
	return serveDir(t, dir)
}

func serveDir(t *testing.T, dir string) (*web.Server, *httptest.Server, string) {
	t.Helper()
	return serveWith(t, web.Options{Dir: dir})
}

// serveWith serves opts.Dir with opts.
func serveWith(t *testing.T, opts web.Options) (*web.Server, *httptest.Server, string) {
	t.Helper()
	root, err := os.OpenRoot(opts.Dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	opts.FS, opts.AllowedHosts = root.FS(), []string{"fleet.internal", "10.1.2.3"}
	s := web.New(opts)
	settle(t, s)
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return s, ts, opts.Dir
}

// A patch page names the command that promotes it against the repository
// serve was given with --root, quoted for a shell, so that it works where
// strata ran.
func TestPatchPageCommandWithRoot(t *testing.T) {
	dir := t.TempDir()
	if err := testfleet.Write(dir); err != nil {
		t.Fatal(err)
	}
	_, ts, _ := serveWith(t, web.Options{Dir: dir, Root: "my fleet"})
	_, body := get(t, ts, "/patch/management-cluster/cert-manager/patch-001")
	if want := "<code>strata --root &#39;my fleet&#39; promote management-cluster cert-manager patch-001</code>"; !strings.Contains(body, want) {
		t.Errorf("the patch page lacks %q", want)
	}
}

// settle looks at the repository until a look neither reloads it nor
// leaves the next to reload it: a look in the clock tick of a change (here,
// of the test's writes) cannot tell whether the tree changed again.
func settle(t *testing.T, s *web.Server) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); s.Refresh(); {
		if time.Now().After(deadline) {
			t.Fatal("the server still reloads the repository at every look after 30s")
		}
	}
}

func get(t *testing.T, ts *httptest.Server, path string) (int, string) {
	t.Helper()
	return do(t, ts, http.MethodGet, path, "")
}

func do(t *testing.T, ts *httptest.Server, method, path, host string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

func TestPages(t *testing.T) {
	_, ts, _ := serve(t)
	for _, tc := range []struct {
		path string
		code int
		want []string
	}{
		{"/", 200, []string{"Rollout matrix", `href="/target/production/prod-sector-1/us-east1"`, `href="/patch/management-cluster/cert-manager/patch-001"`, `data-patches="cert-manager/patch-001 cert-manager/patch-002"`}},
		{"/target/production/prod-sector-1/us-east1", 200, []string{
			`<h1 id="target-name">production/prod-sector-1/us-east1</h1>`,
			"targetRevision: v1.17.0", "config/management-cluster/cert-manager/production/override.yaml:4:23",
			"region: us-east1", "templates/cert-manager.yaml", "kind: Application",
		}},
		{"/target/management-cluster/integration/int-sector-1/us-central1", 200, []string{"integration/int-sector-1/us-central1", "patch-001"}},
		{"/patch/management-cluster/cert-manager/patch-001", 200, []string{"cert-manager/patch-001", "5 of 9", "stage/stage-sector-2", "Upgrade cert-manager to v1.19.0", "strata promote management-cluster cert-manager patch-001"}},
		{"/target/production/nowhere", 404, []string{"unknown target"}},
		{"/patch/management-cluster/cert-manager/patch-999", 404, []string{`unknown patch &#34;patch-999&#34; of management-cluster/cert-manager`, "one of: patch-001"}},
		{"/static/app.js", 200, []string{"/api/generation"}},
		{"/nothing-here", 404, nil},
	} {
		code, body := get(t, ts, tc.path)
		if code != tc.code {
			t.Errorf("GET %s: %d, want %d", tc.path, code, tc.code)
		}
		for _, w := range tc.want {
			if !strings.Contains(body, w) {
				t.Errorf("GET %s: the page lacks %q", tc.path, w)
			}
		}
	}
}

func TestAPI(t *testing.T) {
	_, ts, _ := serve(t)
	code, body := get(t, ts, "/api/status")
	var st struct {
		ClusterTypes []struct {
			Patches []struct{ Component, Name string }
		}
	}
	if err := json.Unmarshal([]byte(body), &st); err != nil || code != 200 {
		t.Fatalf("GET /api/status: %d %v\n%s", code, err, body)
	}
	if n := len(st.ClusterTypes[0].Patches); n != 3 {
		t.Errorf("%d patches, want 3", n)
	}
}

func TestReadOnlyAndLoopback(t *testing.T) {
	_, ts, _ := serve(t)
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete} {
		if code, _ := do(t, ts, m, "/", ""); code != http.StatusMethodNotAllowed {
			t.Errorf("%s /: %d, want 405", m, code)
		}
	}
	if code, _ := do(t, ts, http.MethodGet, "/", "attacker.example:8080"); code != http.StatusForbidden {
		t.Errorf("GET with Host attacker.example: %d, want 403", code)
	}
	for _, host := range []string{"localhost:8080", "127.0.0.1", "[::1]:80", "Fleet.Internal:8080", "10.1.2.3"} {
		if code, _ := do(t, ts, http.MethodGet, "/", host); code != http.StatusOK {
			t.Errorf("GET with Host %s: %d, want 200", host, code)
		}
	}
	for _, host := range []string{"attacker.example", "fleet.internal.attacker.example", "10.1.2.4:8080", "0.0.0.0"} {
		if code, _ := do(t, ts, http.MethodGet, "/", host); code != http.StatusForbidden {
			t.Errorf("GET with Host %s: %d, want 403", host, code)
		}
	}
}

func TestReloadsWhenTheRepositoryChanges(t *testing.T) {
	s, ts, dir := serve(t)
	if s.Refresh() {
		t.Fatal("reloaded with nothing changed")
	}
	next := fmt.Sprintf(`"generation":%d`, s.Generation()+1)
	p := filepath.Join(dir, "config/management-cluster/cert-manager/production/override.yaml")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	write(t, p, strings.Replace(string(data), "v1.17.0", "v1.17.9", 1))
	_, body := get(t, ts, "/api/generation")
	if !strings.Contains(body, next) {
		t.Errorf("generation after a change: %s", body)
	}
	if _, body := get(t, ts, "/"); !strings.Contains(body, "v1.17.9") {
		t.Error("the matrix does not show the new version")
	}
	// A broken file shows the error; fixing it recovers.
	write(t, p, "applications: [\n")
	s.Refresh()
	if _, body := get(t, ts, "/"); !strings.Contains(body, "The fleet does not load") || !strings.Contains(body, "override.yaml") {
		t.Errorf("the page does not show the load error:\n%s", body)
	}
	write(t, p, string(data))
	s.Refresh()
	if _, body := get(t, ts, "/"); !strings.Contains(body, "v1.17.0") {
		t.Error("the matrix did not recover")
	}
}

// A file edited in place, keeping its size and modification time (as a
// tool that restores times does), is a change: /api/generation moves and
// the matrix shows the new content.
func TestReloadsWhenAFileIsEditedInPlace(t *testing.T) {
	s, ts, dir := serve(t)
	p := filepath.Join(dir, "config/management-cluster/cert-manager/production/override.yaml")
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	next := fmt.Sprintf(`"generation":%d`, s.Generation()+1)
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(strings.Replace(string(data), "v1.17.0", "v1.17.9", 1)), 0); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	if _, body := get(t, ts, "/api/generation"); !strings.Contains(body, next) {
		t.Errorf("generation after an edit in place: %s", body)
	}
	if _, body := get(t, ts, "/"); !strings.Contains(body, "v1.17.9") {
		t.Error("the matrix does not show the new version")
	}
}

func write(t *testing.T, p, data string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	// Make the change visible to the poll whatever the file system's
	// timestamp granularity.
	future := time.Now().Add(time.Duration(len(data)) * time.Second)
	if err := os.Chtimes(p, future, future); err != nil {
		t.Fatal(err)
	}
}

func TestDiffPage(t *testing.T) {
	dir, _ := gitFleet(t)
	p := filepath.Join(dir, "config/management-cluster/prometheus/production/override.yaml")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	write(t, p, strings.Replace(string(data), "30d", "45d", 1))
	_, ts, _ := serveDir(t, dir)
	code, body := get(t, ts, "/diff")
	if code != 200 || !strings.Contains(body, "3 of 9 targets change: prometheus") || !strings.Contains(body, `<span class="add">&#43;              retention: 45d</span>`) {
		t.Errorf("GET /diff: %d\n%s", code, body)
	}
	if _, body := get(t, ts, "/diff?base=nope"); !strings.Contains(body, "--base nope: unknown revision") {
		t.Errorf("GET /diff?base=nope:\n%s", body)
	}
	if _, body := get(t, ts, "/diff?target=stage"); !strings.Contains(body, "no target changes (3 targets compared with HEAD)") {
		t.Errorf("GET /diff?target=stage:\n%s", body)
	}
	if _, body := get(t, ts, "/diff?target=staging"); !strings.Contains(body, "--target staging matches no target") {
		t.Errorf("GET /diff?target=staging shows no error for a pattern that matches nothing:\n%s", body)
	}
}

// TestFoldedPatchPage: the page of a patch folded into values.yaml says
// when and by which commit, as status --patch does, rather than "unknown
// patch ... it may have been folded".
func TestFoldedPatchPage(t *testing.T) {
	dir, git := gitFleet(t)
	comp := filepath.Join(dir, "config/management-cluster/prometheus")
	if err := os.Remove(filepath.Join(comp, "integration/int-sector-1/us-central1/patch-001.yaml")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(comp, "history.yaml"), "folds:\n  - patch: patch-001\n    folded: \"2026-11-20T10:00:00Z\"\n")
	git("add", "-A")
	git("commit", "-q", "-m", "Fold patch-001 of prometheus")
	hash, full := git("rev-parse", "--short=12", "HEAD"), git("rev-parse", "HEAD")
	// Another fold, later: each names its own commit.
	cm := filepath.Join(dir, "config/management-cluster/cert-manager")
	for _, p := range []string{"integration/patch-002.yaml", "stage/stage-sector-1/us-east1/patch-002.yaml"} {
		if err := os.Remove(filepath.Join(cm, p)); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(cm, "history.yaml"), "folds:\n  - patch: patch-002\n    folded: \"2026-11-21T10:00:00Z\"\n")
	git("add", "-A")
	git("commit", "-q", "-m", "Fold patch-002 of cert-manager")
	_, ts, _ := serveDir(t, dir)

	code, body := get(t, ts, "/patch/management-cluster/prometheus/patch-001")
	want := `<p class="folded" id="folded">management-cluster/prometheus/patch-001 was folded into values.yaml at 2026-11-20T10:00:00Z by ` +
		hash + ` &#34;Fold patch-001 of prometheus&#34;</p>`
	if code != 200 || !strings.Contains(body, want) {
		t.Errorf("GET the folded patch: %d, want 200 and %s\n%s", code, want, body)
	}
	// A patch no history records stays unknown.
	if code, body := get(t, ts, "/patch/management-cluster/prometheus/patch-002"); code != 404 || !strings.Contains(body, "unknown patch") {
		t.Errorf("GET a patch that never was: %d\n%s", code, body)
	}

	// The matrix lists it, in the very words of its page; /api/status
	// has it as status --patch -o json has it.
	said := want[strings.Index(want, ">")+1 : strings.LastIndex(want, "<")]
	if code, body := get(t, ts, "/"); code != 200 || !strings.Contains(body, `<p class="folded mono" data-patch="management-cluster/prometheus/patch-001">`+said+`</p>`) {
		t.Errorf("GET /: %d, want the fold listed as %q\n%s", code, said, body)
	}
	code, body = get(t, ts, "/api/status")
	var st struct{ Folded []map[string]string }
	if err := json.Unmarshal([]byte(body), &st); err != nil || code != 200 {
		t.Fatalf("GET /api/status: %d %v\n%s", code, err, body)
	}
	wantFolded := []map[string]string{
		{"patch": "management-cluster/cert-manager/patch-002", "at": "2026-11-21T10:00:00Z", "commit": git("rev-parse", "HEAD"), "subject": "Fold patch-002 of cert-manager"},
		{"patch": "management-cluster/prometheus/patch-001", "at": "2026-11-20T10:00:00Z", "commit": full, "subject": "Fold patch-001 of prometheus"},
	}
	if d := cmp.Diff(wantFolded, st.Folded); d != "" {
		t.Errorf("GET /api/status: folded (-want +got):\n%s", d)
	}
}

// gitFleet writes the test fleet into a Git repository with one commit and
// returns its directory and a git that runs there (its output, trimmed).
// It skips the test without git.
func gitFleet(t *testing.T) (string, func(args ...string) string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	if err := testfleet.Write(dir); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) string {
		t.Helper()
		return testgit.Run(t, dir, args...)
	}
	git("init", "-q", "-b", "main")
	git("add", ".")
	git("commit", "-q", "-m", "fleet")
	return dir, git
}
