//go:build linux

package e2e

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strata-fleet/strata/internal/testing/benchfleet/argosim"
)

// How BenchmarkE2EDelivery sizes the hub's Argo CD and reads what its
// application controller did.

// benchInclusions is argocd-cm's resource.inclusions for the bench fleet:
// the kinds it deploys (the demo chart's ConfigMap, the namespaces
// CreateNamespace makes, and on the hub the Applications, ApplicationSets
// and AppProjects of the roots). A cluster cache then watches those types,
// not every type of its API server. A kind left out would not fail: Argo CD
// drops it from the Application with an ExcludedResourceWarning condition,
// which the benchmark's recorder fails on.
const benchInclusions = `- apiGroups: [""]
  kinds: [ConfigMap, Namespace]
  clusters: ["*"]
- apiGroups: [argoproj.io]
  kinds: [Application, ApplicationSet, AppProject]
  clusters: ["*"]
`

// benchSizing sizes the hub's Argo CD for apps Applications as Argo CD's
// high-availability guide does: resource.inclusions to what the fleet
// deploys, and its 50 status and 25 operation processors per 1,000
// Applications, at least its defaults (20 and 10).
// STRATA_BENCH_ARGOCD=e2e keeps the e2e tier's sizing instead;
// STRATA_BENCH_PROCESSORS=STATUS,OPERATION sets the processors;
// STRATA_BENCH_CONTROLLER_ENV adds space-separated NAME=VALUE to the
// controller's environment (ARGOCD_K8S_CLIENT_QPS=100 ...).
func benchSizing(b *testing.B, apps int) Sizing {
	if os.Getenv("STRATA_BENCH_ARGOCD") == "e2e" {
		return Sizing{}
	}
	s := Sizing{
		Settings:            map[string]string{"resource.inclusions": benchInclusions},
		StatusProcessors:    max(20, 50*apps/1000),
		OperationProcessors: max(10, 25*apps/1000),
		ControllerEnv:       strings.Fields(os.Getenv("STRATA_BENCH_CONTROLLER_ENV")),
	}
	if p := os.Getenv("STRATA_BENCH_PROCESSORS"); p != "" {
		st, op, ok := strings.Cut(p, ",")
		var err1, err2 error
		s.StatusProcessors, err1 = strconv.Atoi(st)
		s.OperationProcessors, err2 = strconv.Atoi(op)
		if !ok || err1 != nil || err2 != nil {
			b.Fatalf("STRATA_BENCH_PROCESSORS=%q: want STATUS,OPERATION, two numbers", p)
		}
	}
	return s
}

// benchSyncOptions are the sync options the bench fleet's Applications
// add to CreateNamespace=true: STRATA_BENCH_SYNC_OPTIONS, space-separated,
// if set; else none with STRATA_BENCH_ARGOCD=e2e, and Validate=false, Argo CD's documented option for kubectl apply
// --validate=false. With validation on, each apply fetches and parses the
// OpenAPI v3 document of the object's group version to ask whether the
// server validates its fields: a third of the application controller's CPU
// in a 20 x 5 rollout (the kubectl packages under applyObject, in its CPU
// profile). Without it the API server ignores an unknown field instead of
// refusing it; the fleet's charts are rendered and checked by strata before.
func benchSyncOptions() []string {
	if o, ok := os.LookupEnv("STRATA_BENCH_SYNC_OPTIONS"); ok {
		return strings.Fields(o)
	}
	if os.Getenv("STRATA_BENCH_ARGOCD") == "e2e" {
		return nil
	}
	return []string{"Validate=false"}
}

// addSyncOptions adds opts to the sync options of every Application of the
// hub's and the spokes' defaults, after their CreateNamespace=true.
func (e *Env) addSyncOptions(opts []string) {
	const after = "        - CreateNamespace=true\n"
	for _, f := range []string{"config/hub/defaults.yaml", "config/spoke/defaults.yaml"} {
		path := filepath.Join(e.Repo.Dir, f)
		data, err := os.ReadFile(path)
		if err != nil {
			e.t.Fatal(err)
		}
		if !strings.Contains(string(data), after) {
			e.t.Fatalf("%s: no %q to add sync options after", f, strings.TrimSpace(after))
		}
		var add strings.Builder
		for _, o := range opts {
			add.WriteString("        - " + o + "\n")
		}
		e.Repo.WriteFile(f, strings.Replace(string(data), after, after+add.String(), 1))
	}
}

// scrape reads a Prometheus text endpoint: each sample's value by its
// series, name{labels}.
func scrape(url string) (map[string]float64, error) {
	// The controller builds its page from every Application before it
	// answers: at 1,100 of them under load that took over 30 s.
	resp, err := (&http.Client{Timeout: 3 * time.Minute}).Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if i < 0 || err != nil {
			return nil, fmt.Errorf("GET %s: bad sample %q", url, line)
		}
		out[line[:i]] = v
	}
	return out, sc.Err()
}

// controllerWork is what the application controller did between two
// scrapes of its metrics: for each work queue, the items added, their mean
// wait in the queue and mean processing time, and its depth at the end;
// its reconciliations, syncs and their time, kubectl runs (and those
// waiting for one of its --kubectl-parallelism-limit slots at the end),
// Kubernetes requests and the time its client waited on its own rate
// limit; and its cluster caches at the end: how many, the API types and
// objects they watch.
func controllerWork(before, after map[string]float64) string {
	sum := func(family string, m map[string]float64) (n float64) {
		for k, v := range m {
			if k == family || strings.HasPrefix(k, family+"{") {
				n += v
			}
		}
		return n
	}
	d := func(family string) float64 { return sum(family, after) - sum(family, before) }
	mean := func(family, labels string) time.Duration {
		n := after[family+"_count"+labels] - before[family+"_count"+labels]
		if n == 0 {
			return 0
		}
		s := (after[family+"_sum"+labels] - before[family+"_sum"+labels]) / n
		return time.Duration(s * float64(time.Second)).Round(time.Millisecond)
	}
	var queues []string
	for _, k := range slices.Sorted(maps.Keys(after)) {
		labels, ok := strings.CutPrefix(k, "workqueue_adds_total")
		if n := after[k] - before[k]; ok && n > 0 {
			name := labels
			if _, rest, ok := strings.Cut(labels, `name="`); ok {
				name, _, _ = strings.Cut(rest, `"`)
			}
			// The depth gauge has a priority label the others lack.
			depth := sum("workqueue_depth{controller=\""+name+"\",name=\""+name+"\",priority=\"\"}", after)
			queues = append(queues, fmt.Sprintf("%s %.0f added, wait %s, work %s, depth %.0f at the end", name, n,
				mean("workqueue_queue_duration_seconds", labels), mean("workqueue_work_duration_seconds", labels), depth))
		}
	}
	caches := 0
	for k := range after {
		if strings.HasPrefix(k, "argocd_cluster_api_resources{") {
			caches++
		}
	}
	return fmt.Sprintf("%s; reconciliations %.0f (%.1f s in all); syncs %.0f (%.0f s in all); kubectl runs %.0f "+
		"(%.0f waiting for a slot at the end); Kubernetes requests %.0f; waits on its client's rate limit %.1f s over %.0f "+
		"requests; %d cluster caches watching %.0f API types, %.0f objects",
		strings.Join(queues, "; "), d("argocd_app_reconcile_count"), d("argocd_app_reconcile_sum"), d("argocd_app_sync_total"),
		d("argocd_app_sync_duration_seconds_total"), d("argocd_kubectl_exec_total"), sum("argocd_kubectl_exec_pending", after),
		d("argocd_app_k8s_request_total"), d("argocd_kubectl_rate_limiter_duration_seconds_sum"),
		d("argocd_kubectl_rate_limiter_duration_seconds_count"),
		caches, sum("argocd_cluster_api_resources", after), sum("argocd_cluster_api_resource_objects", after))
}

// benchObserver reads the application controller's metrics at the start
// and end of a phase and, when STRATA_BENCH_OUT names a directory, keeps
// them there with CPU profiles of the controller and the repo-server over
// the phase's first STRATA_BENCH_PROFILE seconds (default 120).
type benchObserver struct {
	b       *testing.B
	a       *ArgoCD
	dir     string
	seconds int
}

func newBenchObserver(b *testing.B, a *ArgoCD) *benchObserver {
	o := &benchObserver{b: b, a: a, dir: os.Getenv("STRATA_BENCH_OUT"),
		seconds: argosim.EnvInt(b, "STRATA_BENCH_PROFILE", 120)}
	if o.dir != "" {
		if err := os.MkdirAll(o.dir, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	return o
}

// phase starts observing the phase named name; the function it returns
// ends it and logs what the controller did meanwhile.
func (o *benchObserver) phase(name string) func() {
	before := o.metrics(name + "-before")
	var done []chan struct{}
	if o.dir != "" {
		for prog, addr := range map[string]string{"controller": o.a.ControllerMetrics, "repo-server": o.a.RepoServerMetrics} {
			c := make(chan struct{})
			done = append(done, c)
			go func() {
				defer close(c)
				o.profile(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, o.seconds),
					filepath.Join(o.dir, name+"-"+prog+".pprof"))
			}()
		}
	}
	return func() {
		after := o.metrics(name + "-after")
		if before != nil && after != nil {
			o.b.Logf("the application controller during %s: %s", name, controllerWork(before, after))
		}
		for _, c := range done {
			<-c
		}
	}
}

// metrics scrapes the controller's metrics, kept as name.prom when there
// is a directory; a failure is logged and gives nil: they say where Argo
// CD's time went, the benchmark's figures do not depend on them (a
// failure after a 43-minute rollout lost its report).
func (o *benchObserver) metrics(name string) map[string]float64 {
	url := "http://" + o.a.ControllerMetrics + "/metrics"
	m, err := scrape(url)
	if err != nil {
		o.b.Logf("reading the application controller's metrics (%s): %v", name, err)
		return nil
	}
	if o.dir != "" {
		var sb strings.Builder
		for _, k := range slices.Sorted(maps.Keys(m)) {
			fmt.Fprintf(&sb, "%s %g\n", k, m[k])
		}
		if err := os.WriteFile(filepath.Join(o.dir, name+".prom"), []byte(sb.String()), 0o644); err != nil {
			o.b.Fatal(err)
		}
	}
	return m
}

// profile saves the CPU profile at url to path; a failure is logged (the
// benchmark's figures do not depend on it).
func (o *benchObserver) profile(url, path string) {
	resp, err := (&http.Client{Timeout: time.Duration(o.seconds+60) * time.Second}).Get(url)
	if err != nil {
		o.b.Logf("CPU profile %s: %v", url, err)
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		o.b.Logf("CPU profile %s: %s", url, resp.Status)
		return
	}
	f, err := os.Create(path)
	if err != nil {
		o.b.Logf("CPU profile: %v", err)
		return
	}
	defer f.Close()
	if _, err := io.Copy(f, resp.Body); err != nil {
		o.b.Logf("CPU profile %s: %v", url, err)
	}
}
