//go:build linux

package e2e

import (
	"context"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/strata-fleet/strata/internal/testing/benchfleet/argosim"
)

// What BenchmarkE2EDelivery measures with: relays that make one API server
// many clusters, a recorder of the Applications' states, a proxy that
// counts strata's calls, and the CPU of every program.

// relay listens on a new loopback port and relays each connection to addr:
// the API server there under another address, which Argo CD takes for
// another cluster. It returns the address; it stops when the test ends.
func relay(t testing.TB, addr string) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	keep := func(c net.Conn) {
		mu.Lock()
		conns = append(conns, c)
		mu.Unlock()
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			keep(c)
			go func() {
				defer c.Close()
				d, err := net.Dial("tcp", addr)
				if err != nil {
					return
				}
				keep(d)
				defer d.Close()
				go func() {
					_, _ = io.Copy(d, c)
					_ = d.(*net.TCPConn).CloseWrite()
				}()
				_, _ = io.Copy(c, d)
			}()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return l.Addr().String()
}

// appState is what the recorder reads of an Application: its status, and
// the version its spec deploys (the demo chart's version value).
type appState struct {
	sync, health, revision, version string
}

// seenAt is a revision and a version an Application was synced and
// healthy at. The version tells a spec its root has updated from the old
// one: a child of an app of apps is compared at the new revision with its
// old spec (and found synced) until its root syncs, and its status names
// the old spec a while after the root changed it.
type seenAt struct{ revision, version string }

// op is a sync operation that succeeded, as Argo CD timed it (seconds).
type op struct {
	started, finished time.Time
}

// recorder watches the hub's Applications and keeps, for each, its
// latest state, when it was first seen synced and healthy at each
// revision, and its sync operations by revision.
type recorder struct {
	mu      sync.Mutex
	apps    map[string]appState
	healthy map[string]map[seenAt]time.Time
	ops     map[string]map[seenAt]op
	// excluded is the message of an Application's
	// ExcludedResourceWarning: it deploys a kind Argo CD's
	// resource.inclusions leave out, which Argo CD drops.
	excluded map[string]string
	changed  chan struct{}
	e        *Env
}

func startRecorder(t testing.TB, e *Env) *recorder {
	r := &recorder{apps: map[string]appState{}, healthy: map[string]map[seenAt]time.Time{},
		ops: map[string]map[seenAt]op{}, excluded: map[string]string{}, changed: make(chan struct{}, 1), e: e}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			w, err := e.Dyn.Resource(appGVR).Namespace(Namespace).Watch(ctx, metav1.ListOptions{})
			if err != nil {
				select {
				case <-ctx.Done():
				case <-time.After(time.Second):
				}
				continue
			}
			for ev := range w.ResultChan() {
				r.observe(ev)
			}
			w.Stop()
		}
	}()
	return r
}

func (r *recorder) observe(ev watch.Event) {
	u, ok := ev.Object.(*unstructured.Unstructured)
	if !ok {
		return
	}
	now := time.Now()
	str := func(fields ...string) string { s, _, _ := unstructured.NestedString(u.Object, fields...); return s }
	name := u.GetName()
	r.mu.Lock()
	defer r.mu.Unlock()
	defer func() {
		select {
		case r.changed <- struct{}{}:
		default:
		}
	}()
	if ev.Type == watch.Deleted {
		delete(r.apps, name)
		return
	}
	s := appState{sync: str("status", "sync", "status"), health: str("status", "health", "status"), revision: str("status", "sync", "revision"),
		version: str("spec", "source", "helm", "valuesObject", "version")}
	r.apps[name] = s
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		if c, ok := c.(map[string]any); ok && c["type"] == "ExcludedResourceWarning" {
			r.excluded[name], _ = c["message"].(string)
		}
	}
	// The status is of the spec it names (comparedTo): right after its
	// root changes the spec, the status still says synced, of the old one.
	compared := str("status", "sync", "comparedTo", "source", "helm", "valuesObject", "version")
	if s.sync == "Synced" && s.health == "Healthy" && s.revision != "" && compared == s.version {
		if r.healthy[name] == nil {
			r.healthy[name] = map[seenAt]time.Time{}
		}
		if _, seen := r.healthy[name][seenAt{s.revision, s.version}]; !seen {
			r.healthy[name][seenAt{s.revision, s.version}] = now
		}
	}
	if str("status", "operationState", "phase") == "Succeeded" {
		rev := str("status", "operationState", "syncResult", "revision")
		started, err1 := time.Parse(time.RFC3339, str("status", "operationState", "startedAt"))
		finished, err2 := time.Parse(time.RFC3339, str("status", "operationState", "finishedAt"))
		if rev != "" && err1 == nil && err2 == nil {
			if r.ops[name] == nil {
				r.ops[name] = map[seenAt]op{}
			}
			v := str("status", "operationState", "syncResult", "source", "helm", "valuesObject", "version")
			r.ops[name][seenAt{rev, v}] = op{started, finished}
		}
	}
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.apps)
}

// settled waits until every Application named in want exists and every
// Application is synced at head and healthy; it fails the test after
// benchConverge, or at once when an Application deploys a kind Argo CD
// excludes. Every 5 minutes it asks for a hard refresh of those
// compared at an older revision (a refresh lost in a race), never of those
// Argo CD has not compared yet: a hard refresh makes the repo-server
// render the chart again, and a thousand of them slow the deploy down.
func (r *recorder) settled(t testing.TB, head string, want []string) {
	t.Helper()
	deadline := time.NewTimer(benchConverge)
	defer deadline.Stop()
	tick := time.NewTicker(time.Minute)
	defer tick.Stop()
	for minutes := 1; ; {
		r.mu.Lock()
		for n, msg := range r.excluded {
			r.mu.Unlock()
			t.Fatalf("Application %s: %s (argocd-cm's resource.inclusions leave out a kind the fleet deploys)", n, msg)
		}
		var missing, unsettled, stale []string
		for _, n := range want {
			if _, ok := r.apps[n]; !ok {
				missing = append(missing, n)
			}
		}
		for n, s := range r.apps {
			if s.sync != "Synced" || s.health != "Healthy" || s.revision != head {
				unsettled = append(unsettled, fmt.Sprintf("%s (%s, %s at %.12s)", n, s.sync, s.health, s.revision))
			}
			if s.revision != "" && s.revision != head {
				stale = append(stale, n)
			}
		}
		r.mu.Unlock()
		if len(missing)+len(unsettled) == 0 {
			return
		}
		select {
		case <-r.changed:
		case <-tick.C:
			t.Logf("waiting for %d missing and %d unsettled Applications (%d at an older revision)", len(missing), len(unsettled), len(stale))
			if minutes%5 == 0 {
				for _, n := range stale {
					r.e.refresh(n)
				}
			}
			minutes++
		case <-deadline.C:
			t.Fatalf("the fleet did not settle at %.12s within %s: %d Applications missing (%s), %d unsettled (%s)",
				head, benchConverge, len(missing), shortNames(missing), len(unsettled), shortNames(unsettled))
		}
	}
}

func shortNames(s []string) string {
	if len(s) > 5 {
		return strings.Join(s[:5], ", ") + ", ..."
	}
	return strings.Join(s, ", ")
}

// callProxy is a TLS proxy in front of the hub's API server that counts
// the requests through it by verb, as the simulated benchmark does
// (argosim.Calls); kubeconfig reaches it as context "bench".
type callProxy struct {
	argosim.Calls
	kubeconfig string
}

func countCalls(t testing.TB, hub *rest.Config) *callProxy {
	target, err := url.Parse(hub.Host)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := rest.TransportFor(hub)
	if err != nil {
		t.Fatal(err)
	}
	p := &callProxy{}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.Transport, rp.FlushInterval = rt, -1
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		p.Count(req)
		rp.ServeHTTP(w, req)
	}))
	t.Cleanup(srv.Close)
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["bench"] = &clientcmdapi.Cluster{Server: srv.URL,
		CertificateAuthorityData: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})}
	cfg.AuthInfos["bench"] = &clientcmdapi.AuthInfo{}
	cfg.Contexts["bench"] = &clientcmdapi.Context{Cluster: "bench", AuthInfo: "bench"}
	cfg.CurrentContext = "bench"
	p.kubeconfig = filepath.Join(t.TempDir(), "proxy.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, p.kubeconfig); err != nil {
		t.Fatal(err)
	}
	return p
}

// procCPU is the CPU time of a process, seconds: its own, and that of its
// children it waited for.
type procCPU struct {
	program     string
	own, reaped float64
}

// cpuByProgram reads the CPU time of the test binary and every process it
// runs, by PID.
func cpuByProgram() map[int]procCPU {
	out := map[int]procCPU{}
	for _, pid := range append(childPIDs(), os.Getpid()) {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		s := string(data)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 15 {
			continue
		}
		// Fields after comm: state(0) ... utime(11) stime(12)
		// cutime(13) cstime(14), in clock ticks (100 a second).
		tick := func(i int) float64 { n, _ := strconv.ParseFloat(f[i], 64); return n / 100 }
		out[pid] = procCPU{program: programOf(pid), own: tick(11) + tick(12), reaped: tick(13) + tick(14)}
	}
	return out
}

// cpuDelta is the CPU each program used between two readings: a process's
// own time and its reaped children's (helm and git under the repo-server),
// but the test binary's children (git http-backend serving Argo CD, and
// strata itself) apart.
func cpuDelta(before, after map[int]procCPU) map[string]float64 {
	out := map[string]float64{}
	for pid, a := range after {
		b := before[pid]
		if pid == os.Getpid() {
			out["test (relays, proxy, recorder)"] += a.own - b.own
			out["children of the test (git http-backend, strata)"] += a.reaped - b.reaped
			continue
		}
		out[a.program] += a.own - b.own + a.reaped - b.reaped
	}
	return out
}
