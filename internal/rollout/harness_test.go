//go:build linux

package rollout_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/lock"
	"github.com/strata-fleet/strata/internal/output"
	"github.com/strata-fleet/strata/internal/record"
	"github.com/strata-fleet/strata/internal/rollout"
	"github.com/strata-fleet/strata/internal/testing/testenv"
	"github.com/strata-fleet/strata/internal/testing/testgit"
)

// The fleet of these tests: two regions of integration, then production
// (a manual gate), one cluster each, every cluster running its own Argo CD
// (distributed model). One API server holds the three Argo CDs'
// Applications, each in a namespace named after its cluster.
var fixture = map[string]string{
	"config/config.yaml": `dimensions: [environments, regions]
repository: {url: https://git.example.com/fleet.git, revision: main}
promotion: {level: regions}
sequence:
  environments:
    - name: integration
      regions: [us-east1, eu-west1]
    - name: production
      promotion: manual
      regions: [us-east1]
cluster_types: [workload]
`,
	"config/workload/defaults.yaml": "applications:\n  default:\n    project: default\n",
	"config/workload/demo/values.yaml": `# The demo chart.
applications:
  demo:
    source:
      repoURL: https://charts.example.com
      chart: demo
      targetRevision: 1.0.0
      helm:
        valuesObject:
          version: "1.0.0"
    destination:
      server: https://kubernetes.default.svc
      namespace: demo
`,
	"config/clusters/w1.yaml": "type: workload\ntarget: integration/us-east1\n",
	"config/clusters/w2.yaml": "type: workload\ntarget: integration/eu-west1\n",
	"config/clusters/w3.yaml": "type: workload\ntarget: production/us-east1\n",
}

// clusters are the inventory's clusters and their targets.
var clusters = map[string]string{"w1": "integration/us-east1", "w2": "integration/eu-west1", "w3": "production/us-east1"}

// patch moves demo to 1.1.0.
const patch = `metadata:
  description: demo 1.1.0
applications:
  demo:
    source:
      helm:
        valuesObject:
          version: "1.1.0"
`

const firstPatch = "config/workload/demo/integration/us-east1/patch-001.yaml"

// harness is a fleet repository pushed to a bare remote, a fake Argo CD
// (the test sets the Applications' status as Argo CD would) and a fake
// clock.
type harness struct {
	t      *testing.T
	dir    string
	git    git.Exec
	dyn    dynamic.Interface
	ns     string // prefix of the Argo CD namespaces
	clock  *clocktesting.FakeClock
	events []rollout.Event

	// health says how a cluster's demo Application is at a commit
	// ("" Healthy); sync failures are set with failSync.
	health   func(cluster, commit string) string
	failSync func(cluster, commit string) string
	// retrySync says Argo CD's operation is Running, retrying a failed
	// sync, with this message.
	retrySync func(cluster, commit string) string
	// hookFail says a PostSync hook failed with this message: the sync
	// failed, while sync and health say Synced and Healthy.
	hookFail func(cluster, commit string) string
	// hookRetried says Argo CD retries the sync whose hook failed: the
	// operation Running again, between its attempts.
	hookRetried bool
	// onEvent runs for each event, before the fake Argo CD reacts;
	// frozen stops it from reacting.
	onEvent func(rollout.Event)
	frozen  bool
	// lockSeen records, per event kind, whether the repository lock was
	// held when the event came (the rollout holds it only while it writes).
	lockSeen map[rollout.Kind]bool
	// unreachable is a cluster whose Argo CD cannot be reached, and why.
	unreachable, why string
	// bare is the remote; other a second clone of it (otherPush).
	bare, other string
	// beforePush runs before the rollout's n-th git push (from 1).
	beforePush func(n int)
	// onGit runs before each git command of the rollout.
	onGit func(args []string)
}

// startAPI starts the API server the subtests of t share, with Argo CD's
// CRDs.
func startAPI(t *testing.T) *testenv.APIServer {
	api := testenv.StartAPIServer(t)
	testenv.InstallArgoCDCRDs(t, api.Config())
	return api
}

func newHarness(t *testing.T, api *testenv.APIServer) *harness {
	t.Helper()
	dyn, err := dynamic.NewForConfig(api.Config())
	if err != nil {
		t.Fatal(err)
	}
	// The clock starts on a whole second: Argo CD records times in seconds,
	// so a soak measured from a recorded time is exact only then.
	h := &harness{t: t, dir: filepath.Join(t.TempDir(), "fleet"), dyn: dyn,
		ns: regexp.MustCompile(`[^a-z0-9]+`).ReplaceAllString(strings.ToLower(t.Name()), "-"), clock: clocktesting.NewFakeClock(time.Now().Truncate(time.Second))}
	if len(h.ns) > 40 {
		h.ns = h.ns[len(h.ns)-40:]
	}
	h.ns = strings.Trim(h.ns, "-")
	h.git = git.Exec{Dir: h.dir, Env: testgit.Env}
	for p, data := range fixture {
		h.write(p, data)
	}
	t.Setenv("STRATA_CACHE_DIR", t.TempDir())
	if _, err := output.Run(output.Options{Root: h.dir, FS: os.DirFS(h.dir)}); err != nil {
		t.Fatal(err)
	}
	h.bare = testgit.Remote(t, h.dir)
	for c := range clusters {
		h.createNamespace(h.ns + "-" + c)
	}
	h.syncAll()
	return h
}

// run runs git args in dir (testgit.Run).
func (h *harness) run(dir string, args ...string) string {
	h.t.Helper()
	return testgit.Run(h.t, dir, args...)
}

func (h *harness) write(p, data string) {
	h.t.Helper()
	full := filepath.Join(h.dir, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) read(p string) string {
	h.t.Helper()
	data, err := os.ReadFile(filepath.Join(h.dir, filepath.FromSlash(p)))
	if err != nil {
		h.t.Fatal(err)
	}
	return string(data)
}

func (h *harness) exists(p string) bool {
	_, err := os.Stat(filepath.Join(h.dir, filepath.FromSlash(p)))
	return err == nil
}

func (h *harness) createNamespace(ns string) {
	h.t.Helper()
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}}
	nsGVR := live.ApplicationGVR
	nsGVR.Group, nsGVR.Version, nsGVR.Resource = "", "v1", "namespaces"
	if _, err := h.dyn.Resource(nsGVR).Create(context.Background(), u, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		h.t.Fatal(err)
	}
}

// env is the rollout's Env on the harness.
func (h *harness) env() rollout.Env {
	return rollout.Env{
		Dir: h.dir, Git: &hookGit{h: h}, Clock: h.clock, PushBackoff: time.Millisecond,
		Connect: func(c *fleet.Cluster) (dynamic.Interface, error) {
			if _, ok := clusters[c.Name]; !ok {
				return nil, fmt.Errorf("unknown cluster %s", c.Name)
			}
			if c.Name == h.unreachable {
				return nil, errors.New(h.why)
			}
			return nsClient{h.dyn, h.ns + "-" + c.Name}, nil
		},
		Lock: func(ctx context.Context) (func(), error) {
			l, err := lock.Acquire(ctx, h.dir, lock.Options{Command: "rollout test", Wait: time.Minute})
			if err != nil {
				return nil, err
			}
			return func() { l.Release() }, nil
		},
		Events: func(e rollout.Event) {
			h.events = append(h.events, e)
			h.seeLock(e.Kind)
			if h.onEvent != nil {
				h.onEvent(e)
			}
			switch e.Kind {
			case rollout.KindPromoted, rollout.KindStart, rollout.KindReverted:
				if !h.frozen {
					h.syncAll()
				}
			}
		},
	}
}

// hookGit is the rollout's git, running h.beforePush before each push of
// the branch (not of strata's record, refs/strata/record).
type hookGit struct {
	h      *harness
	pushes int
}

func (g *hookGit) Run(ctx context.Context, args ...string) (string, error) {
	if g.h.onGit != nil && len(args) > 0 {
		g.h.onGit(args)
	}
	if len(args) > 0 && args[0] == "push" && !strings.Contains(strings.Join(args, " "), record.Ref) {
		g.pushes++
		if g.h.beforePush != nil {
			g.h.beforePush(g.pushes)
		}
	}
	return g.h.git.Run(ctx, args...)
}

// otherPush commits file (data) in a second clone of the remote, up to
// date with it, and pushes it: someone else pushing meanwhile.
func (h *harness) otherPush(file, data, msg string) string {
	h.t.Helper()
	if h.other == "" {
		h.other = filepath.Join(h.t.TempDir(), "other")
		h.run("", "clone", "-q", h.bare, h.other)
	}
	h.run(h.other, "pull", "-q", "--ff-only")
	full := filepath.Join(h.other, filepath.FromSlash(file))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
		h.t.Fatal(err)
	}
	h.run(h.other, "add", "-A")
	h.run(h.other, "commit", "-q", "-m", msg)
	h.run(h.other, "push", "-q", "origin", "main")
	return h.run(h.other, "rev-parse", "HEAD")
}

// seeLock records whether the repository lock is held now.
func (h *harness) seeLock(k rollout.Kind) {
	l, err := lock.Acquire(context.Background(), h.dir, lock.Options{Command: "probe"})
	if h.lockSeen == nil {
		h.lockSeen = map[rollout.Kind]bool{}
	}
	h.lockSeen[k] = h.lockSeen[k] || err != nil
	l.Release()
}

// nsClient stands for the API server of one cluster running Argo CD: it
// is the test's API server, where Argo CD's namespace is the cluster's own.
type nsClient struct {
	dynamic.Interface
	ns string
}

func (c nsClient) Resource(gvr schema.GroupVersionResource) dynamic.NamespaceableResourceInterface {
	return nsResource{c.Interface.Resource(gvr), c.ns}
}

type nsResource struct {
	dynamic.NamespaceableResourceInterface
	ns string
}

func (r nsResource) Namespace(string) dynamic.ResourceInterface {
	return r.NamespaceableResourceInterface.Namespace(r.ns)
}

// rollout runs a rollout to its end.
func (h *harness) rollout(opts rollout.Options) (*rollout.Result, error) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return h.rolloutCtx(ctx, opts)
}

func (h *harness) rolloutCtx(ctx context.Context, opts rollout.Options) (*rollout.Result, error) {
	if opts.ClusterType == "" {
		opts.ClusterType, opts.Component, opts.Patch = "workload", "demo", "patch-001"
	}
	if opts.Approver == "" {
		opts.Approver = "Jane Doe <jane@example.com>"
	}
	return rollout.Run(ctx, h.env(), opts)
}

// syncAll plays Argo CD on every cluster: the root Application synced at
// the remote's main, the demo Application as rendered there, synced (or
// failed, or unhealthy, as the test says).
func (h *harness) syncAll() {
	h.t.Helper()
	commit := h.run(h.bare, "rev-parse", "main") // Argo CD reads the remote
	for c, target := range clusters {
		h.syncCluster(c, target, commit)
	}
}

func (h *harness) syncCluster(cluster, target, commit string) {
	h.t.Helper()
	ns := h.ns + "-" + cluster
	dir := "rendered/workload/" + target
	rootSpec := map[string]any{
		"project":     "default",
		"source":      map[string]any{"repoURL": "https://git.example.com/fleet.git", "path": dir, "targetRevision": "main"},
		"destination": map[string]any{"server": "https://kubernetes.default.svc", "namespace": ns},
	}
	h.apply(ns, "root", rootSpec, status(rootSpec, commit, "Healthy", "Succeeded", "", h.finishedAt(ns, "root", commit)))

	// Each Application the root renders (demo, and what a patch adds).
	for name := range strings.SplitSeq(h.run(h.bare, "ls-tree", "--name-only", commit+":"+dir+"/templates/"), "\n") {
		h.syncApp(ns, cluster, strings.TrimSuffix(name, ".yaml"), commit, dir+"/templates/"+name)
	}
}

// syncApp sets the Application name of cluster (namespace ns) as Argo CD
// would once it synced file at commit, as health, failSync, retrySync and
// hookFail say.
func (h *harness) syncApp(ns, cluster, name, commit, file string) {
	h.t.Helper()
	var doc struct {
		Spec map[string]any `yaml:"spec"`
	}
	if err := yaml.Unmarshal([]byte(h.run(h.bare, "show", commit+":"+file)), &doc); err != nil {
		h.t.Fatal(err)
	}
	spec := doc.Spec
	health, phase, msg := "Healthy", "Succeeded", ""
	if h.health != nil {
		if hs := h.health(cluster, commit); hs != "" {
			health = hs
		}
	}
	if h.failSync != nil {
		if m := h.failSync(cluster, commit); m != "" {
			phase, msg = "Failed", m
		}
	}
	if h.retrySync != nil {
		if m := h.retrySync(cluster, commit); m != "" {
			phase, msg = "Running", m
		}
	}
	st := status(spec, commit, health, phase, msg, h.finishedAt(ns, name, commit))
	if phase == "Running" {
		st["operationState"].(map[string]any)["retryCount"] = rollout.FailAfterRetries
	}
	if h.hookFail != nil {
		if m := h.hookFail(cluster, commit); m != "" {
			failHook(st, m, h.hookRetried)
		}
	}
	h.apply(ns, name, spec, st)
}

// finishedAt is when the sync of the Application name at commit ended: as
// Argo CD records it if it synced that commit already, else now.
func (h *harness) finishedAt(ns, name, commit string) string {
	u, err := h.dyn.Resource(live.ApplicationGVR).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err == nil {
		rev, _, _ := unstructured.NestedString(u.Object, "status", "operationState", "syncResult", "revision")
		at, _, _ := unstructured.NestedString(u.Object, "status", "operationState", "finishedAt")
		if rev == commit && at != "" {
			return at
		}
	}
	return h.clock.Now().UTC().Format(time.RFC3339)
}

// status is the status Argo CD writes after syncing spec at revision, its
// operation finished at finished.
func status(spec map[string]any, revision, health, phase, msg, finished string) map[string]any {
	sync := "Synced"
	if phase != "Succeeded" {
		sync = "OutOfSync"
	}
	st := map[string]any{
		"sync":   map[string]any{"status": sync, "revision": revision, "comparedTo": map[string]any{"source": spec["source"], "destination": spec["destination"]}},
		"health": map[string]any{"status": health},
		"operationState": map[string]any{"phase": phase, "message": msg, "startedAt": "2026-11-23T21:00:00Z", "finishedAt": finished,
			"operation":  map[string]any{"sync": map[string]any{"revision": revision}},
			"syncResult": map[string]any{"revision": revision, "source": spec["source"]}},
	}
	if health == "Degraded" {
		st["resources"] = []any{map[string]any{"kind": "Deployment", "name": "demo", "health": map[string]any{"status": "Degraded", "message": "Deployment \"demo\" exceeded its progress deadline"}}}
	}
	if phase == "Failed" {
		st["operationState"].(map[string]any)["syncResult"].(map[string]any)["resources"] = []any{
			map[string]any{"group": "", "version": "v1", "kind": "ConfigMap", "namespace": "demo", "name": "demo", "status": "SyncFailed", "message": msg}}
	}
	return st
}

func (h *harness) apply(ns, name string, spec, status map[string]any) {
	h.t.Helper()
	ctx := context.Background()
	res := h.dyn.Resource(live.ApplicationGVR).Namespace(ns)
	u, err := res.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		u = &unstructured.Unstructured{Object: map[string]any{"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
			"metadata": map[string]any{"name": name, "namespace": ns}}}
	} else if err != nil {
		h.t.Fatal(err)
	}
	u.Object["spec"], u.Object["status"] = spec, status
	if u.GetResourceVersion() == "" {
		_, err = res.Create(ctx, u, metav1.CreateOptions{})
	} else {
		_, err = res.Update(ctx, u, metav1.UpdateOptions{})
	}
	if err != nil {
		h.t.Fatalf("writing Application %s/%s: %v", ns, name, err)
	}
}

// subjects are the subjects of the commits after the fixture's, oldest
// first.
func (h *harness) subjects() []string {
	out := h.run(h.dir, "log", "--reverse", "--format=%s", "HEAD~"+fmt.Sprint(h.commits()-1)+"..HEAD")
	if out == "" {
		return nil
	}
	return strings.Split(out, "\n")
}

func (h *harness) commits() int {
	var n int
	fmt.Sscan(h.run(h.dir, "rev-list", "--count", "HEAD"), &n)
	return n
}

// kinds are the kinds of the events so far, but KindWaiting (which comes
// or not, as the watch is faster or slower than the step).
func (h *harness) kinds() []rollout.Kind {
	var out []rollout.Kind
	for _, e := range h.events {
		if e.Kind == rollout.KindWaiting {
			continue
		}
		if len(out) == 0 || out[len(out)-1] != e.Kind {
			out = append(out, e.Kind)
		}
	}
	return out
}
