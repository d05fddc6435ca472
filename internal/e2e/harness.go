//go:build linux

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/strata-fleet/strata/internal/testing/testenv"
)

// Argo CD's resources on the hub.
var (
	appGVR     = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "applications"}
	appSetGVR  = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "applicationsets"}
	projectGVR = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "appprojects"}
)

// FleetTestdata is the example fleet the scenarios start from, relative to
// this package.
const FleetTestdata = "testdata/fleet"

// RepoPlaceholder stands in the example fleet where the address of the test's
// Git repository goes.
const RepoPlaceholder = "__FLEET_REPO__"

// HubName is the hub's name in the inventory.
const HubName = "hub"

// Spoke places a spoke of the inventory.
type Spoke struct {
	Name string
	// Target is a full-depth node of the sequence,
	// environment/sector/region.
	Target string
	// OwnArgoCD runs Argo CD on the spoke itself (distributed model: no
	// hub in the inventory); else the hub's Argo CD manages it (central
	// model).
	OwnArgoCD bool
}

// Options say what Start runs.
type Options struct {
	// HubTarget is the hub's node of the sequence (default
	// integration/int-sector-1/us-east1).
	HubTarget string
	// Spokes are started and written into the inventory, each with its own
	// API server.
	Spokes []Spoke
	// NoArgoCD starts the API servers and the Git server only.
	NoArgoCD bool
	// Resync is how often Argo CD compares every Application with Git by
	// itself (default ReconciliationTimeout; Argo CD's own default is 3m).
	Resync time.Duration
	// Size sizes the hub's Argo CD (zero: the e2e tier's sizing).
	Size Sizing
	// OwnFleet: the scenario writes the repository and its inventory
	// itself (an imported repository); Start leaves the work tree empty.
	OwnFleet bool
}

// Cluster is one API server of the fleet.
type Cluster struct {
	Name   string
	Target string
	API    *testenv.APIServer
	Kube   kubernetes.Interface
	Dyn    dynamic.Interface
	// OwnArgoCD: the cluster runs Argo CD (the hub, and a spoke started
	// with OwnArgoCD); ArgoCD is it, once started.
	OwnArgoCD bool
	ArgoCD    *ArgoCD
}

// Env is a running fleet: a hub API server with Argo CD's CRDs (and the
// garbage collector and namespace controllers, so that deletions complete), spoke API servers, a
// Git server with the fleet repository, and Argo CD.
type Env struct {
	t      testing.TB
	Hub    *Cluster
	Spokes []*Cluster
	Git    *GitServer
	// Repo is the fleet repository: a copy of FleetTestdata with the
	// inventory of the clusters, nothing committed yet.
	Repo *Repo
	// ArgoCD is the hub's Argo CD.
	ArgoCD *ArgoCD
	// Dyn reaches the hub.
	Dyn dynamic.Interface
	// Started is when Start began; Timings records its phases.
	Started time.Time
	Timings []Timing
}

// Timing is how long a phase of a test took.
type Timing struct {
	Phase    string
	Duration time.Duration
}

// Start starts the fleet of opts, or skips the test under -short. Everything
// is stopped by PID when the test ends.
func Start(t testing.TB, opts Options) *Env {
	t.Helper()
	bins := requireBinaries(t)
	if opts.HubTarget == "" {
		opts.HubTarget = "integration/int-sector-1/us-east1"
	}
	e := &Env{t: t, Started: time.Now()}
	mark := e.timer()

	e.Hub = e.cluster(HubName, opts.HubTarget)
	e.Hub.OwnArgoCD = true
	e.Hub.API.StartControllerManager(t)
	testenv.InstallArgoCDCRDs(t, e.Hub.API.Config())
	e.Dyn = e.Hub.Dyn
	var own []*Cluster
	for _, s := range opts.Spokes {
		c := e.cluster(s.Name, s.Target)
		// As on any real cluster, its garbage collector completes the
		// deletions Argo CD's prune starts (foreground: a finalizer
		// that only the collector removes; without it a pruned object
		// stays, pending deletion, and its Application Progressing).
		c.API.StartControllerManager(t)
		e.Spokes = append(e.Spokes, c)
		if c.OwnArgoCD = s.OwnArgoCD; c.OwnArgoCD {
			testenv.InstallArgoCDCRDs(t, c.API.Config())
			own = append(own, c)
		}
	}
	mark(fmt.Sprintf("start the hub and %d spoke API servers", len(opts.Spokes)))

	e.Git = StartGitServer(t, bins.git)
	e.Repo = e.Git.NewRepo(t, bins.git, "fleet")
	if !opts.OwnFleet {
		e.copyFleet()
		e.writeInventory()
	}
	mark("create the fleet repository")

	if !opts.NoArgoCD {
		e.ArgoCD = startArgoCD(t, bins, e.Hub.API.Kubeconfig, e.Hub.API.Config(), opts.Resync, opts.Size)
		e.Hub.ArgoCD = e.ArgoCD
		for _, c := range own {
			c.ArgoCD = startArgoCD(t, bins, c.API.Kubeconfig, c.API.Config(), opts.Resync, Sizing{})
		}
		mark(fmt.Sprintf("start redis and Argo CD (%d)", 1+len(own)))
	}
	return e
}

func (e *Env) cluster(name, target string) *Cluster {
	api := testenv.StartAPIServer(e.t)
	kube, err := kubernetes.NewForConfig(api.Config())
	if err != nil {
		e.t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(api.Config())
	if err != nil {
		e.t.Fatal(err)
	}
	return &Cluster{Name: name, Target: target, API: api, Kube: kube, Dyn: dyn}
}

// Clusters returns the hub and the spokes.
func (e *Env) Clusters() []*Cluster { return append([]*Cluster{e.Hub}, e.Spokes...) }

// ArgoCDs returns the clusters that run Argo CD: the hub, then the spokes
// with their own.
func (e *Env) ArgoCDs() []*Cluster {
	var out []*Cluster
	for _, c := range e.Clusters() {
		if c.OwnArgoCD {
			out = append(out, c)
		}
	}
	return out
}

// clusterNamed returns the cluster called name.
func (e *Env) clusterNamed(name string) *Cluster {
	for _, c := range e.Clusters() {
		if c.Name == name {
			return c
		}
	}
	e.t.Fatalf("no cluster %s", name)
	return nil
}

// Spoke returns the spoke called name.
func (e *Env) Spoke(name string) *Cluster {
	for _, s := range e.Spokes {
		if s.Name == name {
			return s
		}
	}
	e.t.Fatalf("no spoke %s", name)
	return nil
}

// timer returns a function that records the time since its previous call
// as the phase it names.
func (e *Env) timer() func(phase string) {
	last := time.Now()
	return func(phase string) {
		d := time.Since(last)
		last = time.Now()
		e.Timings = append(e.Timings, Timing{phase, d})
		e.t.Logf("e2e timing: %s: %s", phase, d.Round(10*time.Millisecond))
	}
}

// Mark returns a timer for the scenario's own phases.
func (e *Env) Mark() func(phase string) { return e.timer() }

// copyFleet copies the example fleet into the repository's work tree, with
// the repository's address for the placeholder.
func (e *Env) copyFleet() {
	err := filepath.WalkDir(FleetTestdata, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(FleetTestdata, path)
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		e.Repo.WriteFile(filepath.ToSlash(rel), strings.ReplaceAll(string(data), RepoPlaceholder, e.Repo.URL))
		return nil
	})
	if err != nil {
		e.t.Fatalf("copying the example fleet: %v", err)
	}
}

// writeInventory writes config/clusters/: the hub runs its own Argo CD
// (no server, no hub), each spoke is reached at its API server by the hub,
// but those that run their own Argo CD.
func (e *Env) writeInventory() {
	e.Repo.WriteFile("config/clusters/"+HubName+".yaml", fmt.Sprintf(
		"# The hub runs Argo CD, which manages itself and the spokes.\ntype: hub\ntarget: %s\n", e.Hub.Target))
	for _, s := range e.Spokes {
		if s.OwnArgoCD {
			e.Repo.WriteFile("config/clusters/"+s.Name+".yaml", fmt.Sprintf(
				"# It runs its own Argo CD (distributed model).\ntype: spoke\ntarget: %s\n", s.Target))
			continue
		}
		e.Repo.WriteFile("config/clusters/"+s.Name+".yaml", fmt.Sprintf(
			"type: spoke\ntarget: %s\nserver: %s\nhub: %s\n", s.Target, s.API.URL, HubName))
	}
}

// Memory returns the resident memory, in MiB, of the test binary and of
// every process it runs (API servers, etcd, the controller manager, redis,
// Argo CD's components, and their children of the moment), read from /proc:
// the total and the sum per program.
func (e *Env) Memory() (total int, byProgram map[string]int) {
	byProgram = map[string]int{}
	kib := 0
	for _, pid := range append(childPIDs(), os.Getpid()) {
		n := rssOf(pid)
		kib += n
		byProgram[programOf(pid)] += n
	}
	for k, v := range byProgram {
		byProgram[k] = v / 1024
	}
	return kib / 1024, byProgram
}

// logSummary logs the timings and memory of the run.
func (e *Env) logSummary() {
	var b strings.Builder
	for _, tm := range e.Timings {
		fmt.Fprintf(&b, "\n  %-60s %8s", tm.Phase, tm.Duration.Round(100*time.Millisecond))
	}
	total, by := e.Memory()
	var mem []string
	for _, k := range sortedKeys(by) {
		mem = append(mem, fmt.Sprintf("%s %d", k, by[k]))
	}
	e.t.Logf("e2e summary (%s, %d CPUs): total %s; resident memory %d MiB (%s)%s",
		e.t.Name(), runtime.NumCPU(), time.Since(e.Started).Round(100*time.Millisecond), total, strings.Join(mem, ", "), b.String())
}

// Done logs the summary of the test's timings and memory; call it last.
func (e *Env) Done() { e.logSummary() }

// ctx returns a context for one call to an API server.
func (e *Env) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 30*time.Second)
}
