package web_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/performance"
	"github.com/chromedp/chromedp"

	"github.com/strata-fleet/strata/internal/testing/benchfleet"
)

// BenchmarkBrowserMatrix measures the matrix as a user gets it: strata
// serve (built from cmd/strata, or $STRATA_BIN) serves bench fleets of
// $STRATA_BENCH_WEB_TARGETS targets (default "1000 10000"; genfleet's
// fleets of 4 x 10 x N/40 targets and 20 components, written under
// $TMPDIR: use a tmpfs), and each iteration opens every fleet's first page
// in headless Chromium, from about:blank, then clicks "next". The figures
// are the browser's own (Navigation and Paint Timing; the DevTools
// protocol's Performance metrics in thread time, the renderer's main
// thread's CPU), medians of the iterations, logged per fleet:
//
//	TMPDIR=/dev/shm go test -run '^$' -bench BenchmarkBrowserMatrix -benchtime 5x ./internal/web/
//
// The server's status computation before it listens is not part of a
// page (it is timed once per fleet, "server up").
func BenchmarkBrowserMatrix(b *testing.B) {
	exe := chromium(b)
	sizes := benchSizes(b)
	bin := strataBinary(b)
	urls := make([]string, len(sizes))
	for i, n := range sizes {
		urls[i] = serveFleet(b, bin, n)
	}
	browser := startChromium(b, exe)
	if _, err := chromedp.Run(browser, chromedp.Action[page.AddScriptToEvaluateOnNewDocumentResult](
		func(ctx context.Context, t *chromedp.Target) (page.AddScriptToEvaluateOnNewDocumentResult, error) {
			if _, err := cdp.Call(ctx, t, performance.Enable, performance.EnableParams{TimeDomain: performance.EnableTimeDomainThreadTicks}); err != nil {
				return page.AddScriptToEvaluateOnNewDocumentResult{}, err
			}
			return cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: paintedScript})
		})); err != nil {
		b.Fatal(err)
	}
	b.Logf("load average before: %s", loadAverage())
	samples := make([][]visit, len(sizes))
	for b.Loop() {
		for i := range sizes { // the sizes alternate, under the same load
			samples[i] = append(samples[i], visitPages(b, browser, urls[i]))
		}
	}
	b.Logf("load average after: %s", loadAverage())
	for i, n := range sizes {
		m := medianVisit(samples[i])
		b.Logf("%d targets, median of %d: first page: %s; next page: %s", n, len(samples[i]), m.first, m.next)
		b.ReportMetric(m.first.Painted, fmt.Sprintf("ms-first-page/%d", n))
		b.ReportMetric(m.next.Painted-m.next.Clicked, fmt.Sprintf("ms-next-page/%d", n))
	}
}

// paintedScript runs in every page before its own scripts: it notes when
// the first frame after the load event has been painted (the matrix is on
// screen), and when a pager link is clicked (in sessionStorage, which the
// next page of the tab reads).
const paintedScript = `window.__painted = new Promise(function (resolve) {
  addEventListener("load", function () {
    setTimeout(function () {
      requestAnimationFrame(function () { setTimeout(function () { resolve(performance.now()); }); });
    });
  });
});
document.addEventListener("click", function (e) {
  if (e.target.closest && e.target.closest("nav.pager a")) {
    sessionStorage.setItem("clickedAt", String(performance.timeOrigin + performance.now()));
  }
}, true);`

// measureScript reads a page's figures once it has painted, in
// milliseconds from its navigation's start; Clicked is when the click
// that opened it happened (negative), 0 without one.
const measureScript = `window.__painted.then(function (painted) {
  var n = performance.getEntriesByType("navigation")[0];
  var fcp = performance.getEntriesByName("first-contentful-paint")[0];
  var at = Number(sessionStorage.getItem("clickedAt") || 0);
  sessionStorage.removeItem("clickedAt");
  return {TTFB: n.responseStart, HTML: n.responseEnd, DCL: n.domContentLoadedEventEnd, Load: n.loadEventEnd,
    FCP: fcp ? fcp.startTime : -1, Painted: painted, Clicked: at ? at - performance.timeOrigin : 0,
    Bytes: n.decodedBodySize, Nodes: document.getElementsByTagName("*").length,
    Rows: document.querySelectorAll("table.matrix tr.target").length};
})`

// pageFigures are one page's figures (milliseconds, bytes, counts).
type pageFigures struct {
	TTFB, HTML, DCL, Load, FCP, Painted, Clicked float64
	Bytes, Nodes, Rows                           float64
	// CPU is the renderer's main thread's CPU for the page (the
	// Performance domain's TaskDuration in thread ticks), Layout and Style
	// its layout and style recalculation.
	CPU, Layout, Style float64
}

func (p pageFigures) String() string {
	s := fmt.Sprintf("TTFB %.0f ms, HTML %.0f ms, FCP %.0f ms, DOMContentLoaded %.0f ms, load %.0f ms, painted %.0f ms",
		p.TTFB, p.HTML, p.FCP, p.DCL, p.Load, p.Painted)
	if p.Clicked != 0 {
		s += fmt.Sprintf(" (click to painted %.0f ms)", p.Painted-p.Clicked)
	}
	return s + fmt.Sprintf("; main thread CPU %.0f ms (layout %.0f, style %.0f); %.0f KB, %.0f elements, %.0f rows",
		p.CPU, p.Layout, p.Style, p.Bytes/1024, p.Nodes, p.Rows)
}

// visit is one iteration on one fleet: its first page, then the next.
type visit struct{ first, next pageFigures }

func visitPages(b *testing.B, browser context.Context, url string) visit {
	b.Helper()
	ctx, cancel := context.WithTimeout(browser, 2*time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		b.Fatal(err)
	}
	var v visit
	var err error
	if v.first, err = measured(ctx, chromedp.Navigate(url+"/")); err != nil {
		b.Fatalf("opening %s: %v", url, err)
	}
	next := chromedp.Click(chromedp.CSS(`nav.pager a[rel="next"]`), chromedp.NodeVisible)
	if v.next, err = measured(ctx, chromedp.Action[chromedp.Void](func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.RunResponse(ctx, next)
		return chromedp.Void{}, err
	})); err != nil {
		b.Fatalf("following next on %s: %v", url, err)
	}
	if v.first.Rows == 0 || v.next.Rows == 0 {
		b.Fatalf("%s: a page without a matrix (%v rows, then %v)", url, v.first.Rows, v.next.Rows)
	}
	return v
}

// measured runs nav, which loads a page, and returns the page's figures.
// The Performance domain's metrics start again with each document: those
// read once it has painted are the page's.
func measured(ctx context.Context, nav chromedp.Action[chromedp.Void]) (pageFigures, error) {
	if err := chromedp.Do(ctx, nav); err != nil {
		return pageFigures{}, err
	}
	p, err := chromedp.Run(ctx, chromedp.Evaluate[pageFigures](measureScript, chromedp.EvalAwaitPromise))
	if err != nil {
		return p, err
	}
	m, err := threadMetrics(ctx)
	if err != nil {
		return p, err
	}
	p.CPU, p.Layout, p.Style = 1000*m["TaskDuration"], 1000*m["LayoutDuration"], 1000*m["RecalcStyleDuration"]
	return p, nil
}

func threadMetrics(ctx context.Context) (map[string]float64, error) {
	res, err := chromedp.Run(ctx, chromedp.Action[performance.GetMetricsResult](
		func(ctx context.Context, t *chromedp.Target) (performance.GetMetricsResult, error) {
			return cdp.Call(ctx, t, performance.GetMetrics, cdp.Empty{})
		}))
	if err != nil {
		return nil, err
	}
	m := map[string]float64{}
	for _, x := range res.Metrics {
		m[x.Name] = x.Value
	}
	return m, nil
}

// fields are the figures, for medianVisit.
func (p *pageFigures) fields() []*float64 {
	return []*float64{&p.TTFB, &p.HTML, &p.DCL, &p.Load, &p.FCP, &p.Painted, &p.Clicked,
		&p.Bytes, &p.Nodes, &p.Rows, &p.CPU, &p.Layout, &p.Style}
}

// medianVisit is the median of each figure over the visits.
func medianVisit(vs []visit) visit {
	var out visit
	for _, pick := range []func(*visit) *pageFigures{
		func(v *visit) *pageFigures { return &v.first },
		func(v *visit) *pageFigures { return &v.next },
	} {
		for k, dst := range pick(&out).fields() {
			var xs []float64
			for i := range vs {
				xs = append(xs, *pick(&vs[i]).fields()[k])
			}
			*dst = median(xs)
		}
	}
	return out
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	if len(xs)%2 == 1 {
		return xs[len(xs)/2]
	}
	return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
}

func benchSizes(b *testing.B) []int {
	spec := os.Getenv("STRATA_BENCH_WEB_TARGETS")
	if spec == "" {
		spec = "1000 10000"
	}
	var sizes []int
	for _, f := range strings.Fields(spec) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 40 || n%40 != 0 {
			b.Fatalf("STRATA_BENCH_WEB_TARGETS=%q: %q is not a multiple of 40 (4 environments x 10 sectors x regions)", spec, f)
		}
		sizes = append(sizes, n)
	}
	return sizes
}

// strataBinary is $STRATA_BIN, or strata built from this tree.
func strataBinary(b *testing.B) string {
	if p := os.Getenv("STRATA_BIN"); p != "" {
		return p
	}
	out := filepath.Join(b.TempDir(), "strata")
	cmd := exec.Command("go", "build", "-o", out, "./cmd/strata")
	cmd.Dir = filepath.Join("..", "..")
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("building strata: %v\n%s", err, msg)
	}
	return out
}

var servingLine = regexp.MustCompile(`^serving .* on (http://\S+) `)

// serveFleet writes a bench fleet of n targets, starts strata serve on it
// and returns its address once it says it listens; it stops with b.
func serveFleet(b *testing.B, bin string, n int) string {
	b.Helper()
	dir := benchFleet(b, n)
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--root", dir)
	cmd.Env = append(os.Environ(), "STRATA_CACHE_DIR="+filepath.Join(dir, ".cache"))
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
		close(found)
	}()
	select {
	case url, ok := <-found:
		if !ok {
			b.Fatalf("strata serve on %d targets ended without saying where it listens", n)
		}
		b.Logf("%d targets: server up (load and status) in %s, load average %s", n, time.Since(start).Round(10*time.Millisecond), loadAverage())
		return url
	case <-time.After(10 * time.Minute):
		b.Fatalf("strata serve on %d targets did not listen within 10 minutes", n)
	}
	return ""
}

// benchFleet writes genfleet's bench fleet of n targets (4 environments x
// 10 sectors x n/40 regions, 20 components).
func benchFleet(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	spec := benchfleet.DefaultSpec()
	spec.Regions = n / (spec.Environments * spec.Sectors)
	if err := benchfleet.Write(dir, spec); err != nil {
		b.Fatal(err)
	}
	return dir
}

func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(data))[:3], " ")
}
