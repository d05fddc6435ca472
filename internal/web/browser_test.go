package web_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/status"
	"github.com/strata-fleet/strata/internal/testing/testfleet"
	"github.com/strata-fleet/strata/internal/testing/testgit"
)

// exampleFleet is the fleet the browser test serves when it exists; the
// test fleet stands in otherwise.
const exampleFleet = "../../examples/seed-003"

// chromium is Debian's Chromium (apt-get install chromium); STRATA_CHROMIUM
// names another binary.
func chromium(t testing.TB) string {
	if testing.Short() {
		t.Skip("the browser test is skipped under -short")
	}
	if p := os.Getenv("STRATA_CHROMIUM"); p != "" {
		return p
	}
	const p = "/usr/bin/chromium"
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s is missing (apt-get install chromium): skipping the browser test", p)
	}
	return p
}

// artifacts is where screenshots are kept: $STRATA_TEST_ARTIFACTS/web, else
// test-artifacts/web at the top of the repository (ignored by Git).
func artifacts(t *testing.T) string {
	dir := os.Getenv("STRATA_TEST_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", "..", "test-artifacts")
	}
	dir, err := filepath.Abs(filepath.Join(dir, "web"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots go to %s", dir)
	return dir
}

// fleetDir copies the example fleet's sources (or writes the test fleet)
// into a new Git repository and commits them.
func fleetDir(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	name := "examples/seed-003"
	if _, err := os.Stat(filepath.Join(exampleFleet, "config", "config.yaml")); err == nil {
		for _, sub := range []string{"config", "argocd-apps"} {
			if err := copyTree(filepath.Join(exampleFleet, sub), filepath.Join(dir, sub)); err != nil {
				t.Fatal(err)
			}
		}
	} else {
		name = "the test fleet (examples/seed-003 is absent)"
		if err := testfleet.Write(dir); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is not installed")
	}
	testgit.Run(t, dir, "init", "-q", "-b", "main")
	testgit.Run(t, dir, "add", ".")
	testgit.Run(t, dir, "commit", "-q", "-m", "fleet")
	return dir, name
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && p == src {
				return fs.SkipAll
			}
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o644)
	})
}

// startChromium starts headless Chromium (exe) for the test and returns the
// context its actions run on; it stops with the test.
func startChromium(t testing.TB, exe string) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 1000),
	)
	alloc, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	browser, cancel := chromedp.NewContext(alloc)
	t.Cleanup(cancel)
	// The first action starts the browser: it runs on the context that
	// lives as long as the browser, the others with a time limit each.
	if err := chromedp.Do(browser, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	return browser
}

// TestBrowser drives the UI in headless Chromium: the matrix loads and
// shows every patch of the fleet, a click on a target opens its detail with
// provenance, a click on a patch opens its rollout, the page reloads by
// itself when the repository changes, and the diff page shows that change;
// no request leaves the server. Screenshots of each step are kept.
func TestBrowser(t *testing.T) {
	exe := chromium(t)
	shots := artifacts(t)
	dir, name := fleetDir(t)
	t.Logf("serving %s", name)
	_, ts, _ := serveDir(t, dir)

	f, err := fleet.Load(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	st, err := status.Compute(f)
	if err != nil {
		t.Fatal(err)
	}
	var wantPatches []string
	for _, ct := range st.ClusterTypes {
		for _, p := range ct.Patches {
			wantPatches = append(wantPatches, p.Component+"/"+p.Name)
		}
	}
	if len(wantPatches) == 0 {
		t.Fatalf("%s has no patches: the test needs some", name)
	}

	browser := startChromium(t, exe)
	var mu sync.Mutex
	var requests []string
	if err := chromedp.Listen(browser, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			mu.Lock()
			requests = append(requests, e.Request.URL)
			mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	step := func() context.Context {
		ctx, cancel := context.WithTimeout(browser, 30*time.Second)
		t.Cleanup(cancel)
		return ctx
	}
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(step(), steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	shot := func(file string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			buf, err := chromedp.FullScreenshot(100)(ctx, tg)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(shots, file), buf, 0o644)
		})
	}
	eval := func(expr string) []string {
		t.Helper()
		v, err := chromedp.Run(step(), chromedp.Evaluate[[]string](expr))
		if err != nil {
			t.Fatalf("evaluating %s: %v", expr, err)
		}
		return v
	}
	text := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(step(), chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("reading %s: %v", sel, err)
		}
		return v
	}

	// The matrix shows every patch: in the patches table and in cells.
	do("loading the matrix",
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS("table.matrix")),
		shot("1-matrix.png"))
	rows := eval(`Array.from(document.querySelectorAll("tr.patch")).map(r => r.dataset.patch)`)
	cells := eval(`Array.from(document.querySelectorAll("td[data-patches]")).flatMap(td => td.dataset.patches.split(" "))`)
	slices.Sort(rows)
	slices.Sort(wantPatches)
	if !slices.Equal(rows, wantPatches) {
		t.Errorf("the matrix lists the patches %v, want %v", rows, wantPatches)
	}
	for _, p := range wantPatches {
		if !slices.Contains(cells, p) {
			t.Errorf("no cell of the matrix shows %s in effect", p)
		}
	}

	// A click on a target opens its detail, with provenance.
	clicked := eval(`[document.querySelector("a.target-link").closest("tr").dataset.target]`)[0]
	do("opening a target",
		chromedp.Click(chromedp.CSS("a.target-link"), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS("#target-name")),
		shot("2-target.png"))
	if heading, path := text("#target-name"), eval(`[location.pathname]`)[0]; heading != clicked || path != "/target/"+clicked {
		t.Errorf("clicked %s, got the page %s titled %q", clicked, path, heading)
	}
	prov := eval(`Array.from(document.querySelectorAll("table.values td.prov")).map(td => td.textContent).filter(s => /:\d+:\d+$/.test(s))`)
	if len(prov) == 0 {
		t.Error("the target's detail shows no file:line:col for its values")
	}

	// A click on a patch opens its rollout along the sequence.
	do("opening a patch",
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS("a.patch-link")),
		chromedp.Click(chromedp.CSS("a.patch-link"), chromedp.NodeVisible),
		chromedp.WaitVisible(chromedp.CSS("#patch-name")),
		shot("3-patch.png"))
	if h := text("#patch-name"); h != wantPatches[0] {
		t.Errorf("the first patch's page is titled %q, want %q", h, wantPatches[0])
	}
	if n := eval(`Array.from(document.querySelectorAll("table.rollout tr[data-node]")).map(r => r.dataset.node)`); len(n) == 0 {
		t.Error("the patch page shows no sequence")
	}

	// A change on disk: the open matrix reloads by itself and shows it.
	ct := f.ClusterTypes[0]
	comp, item := firstApplication(t, st)
	first := f.Config.Root.Children[0].Name
	patch := filepath.Join(dir, "config", ct.Name, comp, first, "patch-999.yaml")
	do("loading the matrix again",
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS("table.matrix")))
	data := fmt.Sprintf("metadata:\n  description: added by the browser test\napplications:\n  %s:\n    additionalLabels:\n      example.com/browser-test: \"yes\"\n", item)
	if err := os.MkdirAll(filepath.Dir(patch), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(patch, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	do("waiting for the page to show the new patch",
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`tr.patch[data-patch="%s/patch-999"]`, comp))),
		shot("4-reloaded.png"))

	// The diff page shows what the change does to the rendered output.
	do("loading the diff",
		chromedp.Navigate(ts.URL+"/diff"),
		chromedp.WaitVisible(chromedp.CSS("#diff-summary")),
		shot("5-diff.png"))
	if summary := text("#diff-summary"); !strings.Contains(summary, "targets change: ") || !strings.Contains(summary, item) {
		t.Errorf("diff summary %q, want the targets of %s changing", summary, item)
	}

	mu.Lock()
	defer mu.Unlock()
	if len(requests) == 0 {
		t.Error("saw no requests at all")
	}
	for _, u := range requests {
		if !strings.HasPrefix(u, ts.URL+"/") && !strings.HasPrefix(u, "data:") && u != "about:blank" {
			t.Errorf("the page requested %s, outside the server", u)
		}
	}
}

// firstApplication finds a component with an Application, for a change.
func firstApplication(t *testing.T, st *status.Status) (component, item string) {
	for _, ct := range st.ClusterTypes[:1] {
		for _, row := range ct.Targets {
			for _, c := range row.Cells {
				for _, v := range c.Versions {
					if v.Kind == "Application" {
						return c.Component, v.Resource
					}
				}
			}
		}
	}
	t.Fatal("no Application in the fleet")
	return "", ""
}

// TestBrowserPagesTheMatrix follows the matrix of a fleet larger than a
// page from its first page to the next and back, in headless Chromium.
func TestBrowserPagesTheMatrix(t *testing.T) {
	exe := chromium(t)
	shots := artifacts(t)
	_, ts, _ := serveDir(t, largeFleet(t))
	browser := startChromium(t, exe)
	run := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		ctx, cancel := context.WithTimeout(browser, 30*time.Second)
		defer cancel()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	rows := func() int {
		t.Helper()
		ctx, cancel := context.WithTimeout(browser, 30*time.Second)
		defer cancel()
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("table.matrix tr.target").length`))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	run("loading the first page",
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(`nav.pager a[rel="next"]`)))
	if n := rows(); n != 200 {
		t.Errorf("the first page shows %d targets, want 200", n)
	}
	run("following next",
		chromedp.Click(chromedp.CSS(`nav.pager a[rel="next"]`)),
		chromedp.WaitVisible(chromedp.CSS(`nav.pager a[rel="prev"]`)),
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			buf, err := chromedp.FullScreenshot(100)(ctx, tg)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(shots, "pager-2.png"), buf, 0o644)
		}))
	if n := rows(); n != 40 {
		t.Errorf("the second page shows %d targets, want 40", n)
	}
	run("going back to the first page",
		chromedp.Click(chromedp.CSS(`nav.pager a[rel="prev"]`)),
		chromedp.WaitVisible(chromedp.CSS(`nav.pager a[rel="next"]`)))
	if n := rows(); n != 200 {
		t.Errorf("back on the first page, %d targets, want 200", n)
	}
}
