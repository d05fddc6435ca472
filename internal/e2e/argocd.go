//go:build linux

package e2e

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/strata-fleet/strata/internal/testing/testenv"
)

// Namespace is Argo CD's namespace on the hub.
const Namespace = "argocd"

// ReconciliationTimeout is how often the application controller compares an
// Application with Git by itself. The tests do not rely on it: they ask for
// a hard refresh after each commit (RefreshAll); it only bounds how long a
// refresh request lost in a race can delay a test.
const ReconciliationTimeout = 30 * time.Second

// How long the components have to come up.
const componentTimeout = 2 * time.Minute

// ArgoCD is Argo CD's repo-server, application-controller and
// applicationset-controller, with their redis, running as local processes
// against the hub's API server.
type ArgoCD struct {
	// RepoServer and Redis are the loopback addresses of those servers.
	RepoServer, Redis string
	// ControllerMetrics is the application controller's metrics address
	// (GET /metrics: argocd_app_info and the rest, as Prometheus scrapes
	// it, and /debug/pprof/ as Go serves it).
	ControllerMetrics string
	// RepoServerMetrics is the repo-server's (/metrics, /debug/pprof/).
	RepoServerMetrics string
	// Dir holds the components' logs and data.
	Dir string
}

// Sizing is how an Argo CD is sized for its fleet, each field a documented
// Argo CD setting. The zero value is the e2e tier's: 4 status and 4
// operation processors (Argo CD's defaults are 20 and 10), every resource
// type of every cluster cached, the other settings Argo CD's defaults.
// BenchmarkE2EDelivery sizes the hub's Argo CD for a hundred clusters.
type Sizing struct {
	// StatusProcessors and OperationProcessors are the application
	// controller's (0: 4).
	StatusProcessors, OperationProcessors int
	// Settings are added to argocd-cm: resource.inclusions and the like.
	Settings map[string]string
	// ControllerArgs and ControllerEnv are added to the application
	// controller's arguments and environment (ARGOCD_K8S_CLIENT_QPS...).
	ControllerArgs, ControllerEnv []string
	// RepoServerArgs are added to the repo-server's arguments.
	RepoServerArgs []string
}

// startArgoCD writes Argo CD's configuration to the hub (the namespace,
// argocd-cm, argocd-rbac-cm, argocd-secret, argocd-cmd-params-cm and the
// default AppProject; the CRDs must be installed) and starts redis and the
// three components, sized by size, stopped by the test's cleanup. resync is
// how often the controller compares each Application with Git by itself
// (0: ReconciliationTimeout).
func startArgoCD(t testing.TB, bins binaries, hubKubeconfig string, hub *rest.Config, resync time.Duration, size Sizing) *ArgoCD {
	t.Helper()
	if resync == 0 {
		resync = ReconciliationTimeout
	}
	status, operation := cmp.Or(size.StatusProcessors, 4), cmp.Or(size.OperationProcessors, 4)
	ctx, cancel := context.WithTimeout(context.Background(), componentTimeout)
	defer cancel()
	if err := configureArgoCD(ctx, hub, resync, size.Settings); err != nil {
		t.Fatalf("configuring Argo CD on the hub: %v", err)
	}
	a := &ArgoCD{Dir: filepath.Join(t.TempDir(), "argocd")}
	env, err := a.environment(bins, hubKubeconfig, resync)
	if err != nil {
		t.Fatalf("preparing Argo CD's directories: %v", err)
	}
	common := []string{"--logformat", "text", "--loglevel", "info"}
	a.start(t, "redis", nil, bins.redis, 1, func(p []int) ([]string, func() error) {
		a.Redis = addr(p[0])
		return []string{
			"--bind", "127.0.0.1", "--port", strconv.Itoa(p[0]),
			"--save", "", "--appendonly", "no", "--dir", a.Dir, "--protected-mode", "no",
		}, listening(a.Redis)
	})

	a.start(t, "argocd-repo-server", append(env, "ARGOCD_BINARY_NAME=argocd-repo-server"), bins.argocd, 2, func(p []int) ([]string, func() error) {
		a.RepoServer, a.RepoServerMetrics = addr(p[0]), addr(p[1])
		return slices.Concat([]string{
			"--address", "127.0.0.1", "--port", strconv.Itoa(p[0]),
			"--metrics-address", "127.0.0.1", "--metrics-port", strconv.Itoa(p[1]),
			"--disable-tls", "--client-ca-path", "", "--redis", a.Redis,
			// A branch is resolved again after 5 s: a commit is seen at
			// once by a hard refresh, and soon by any other.
			"--revision-cache-expiration", "5s",
		}, size.RepoServerArgs, common), httpOK("http://" + addr(p[1]) + "/healthz")
	})

	controllerEnv := slices.Concat(env, []string{"ARGOCD_BINARY_NAME=argocd-application-controller"}, size.ControllerEnv)
	a.start(t, "argocd-application-controller", controllerEnv, bins.argocd, 1, func(p []int) ([]string, func() error) {
		a.ControllerMetrics = addr(p[0])
		return slices.Concat([]string{
			"--kubeconfig", hubKubeconfig, "--namespace", Namespace,
			"--metrics-port", strconv.Itoa(p[0]),
			"--repo-server", a.RepoServer, "--repo-server-plaintext",
			"--redis", a.Redis,
			"--app-resync", strconv.Itoa(int(resync.Seconds())),
			"--status-processors", strconv.Itoa(status), "--operation-processors", strconv.Itoa(operation),
		}, size.ControllerArgs, common), httpOK("http://" + addr(p[0]) + "/healthz")
	})

	// Its probe endpoint answers 404 outside a cluster; its metrics
	// endpoint says that it runs. Scenarios wait on what it generates.
	a.start(t, "argocd-applicationset-controller", append(env, "ARGOCD_BINARY_NAME=argocd-applicationset-controller"), bins.argocd, 3, func(p []int) ([]string, func() error) {
		return append([]string{
			"--kubeconfig", hubKubeconfig, "--namespace", Namespace,
			"--metrics-addr", addr(p[0]), "--probe-addr", addr(p[1]), "--webhook-addr", addr(p[2]),
			"--argocd-repo-server", a.RepoServer, "--repo-server-plaintext",
			"--enable-scm-providers=false",
		}, common...), httpOK("http://" + addr(p[0]) + "/metrics")
	})
	return a
}

// environment creates the data directories Argo CD expects in its container
// image and returns the environment that points the components at them.
func (a *ArgoCD) environment(bins binaries, hubKubeconfig string, resync time.Duration) ([]string, error) {
	dirs := map[string]string{
		"HOME":                      "home",
		"TMPDIR":                    "tmp",
		"ARGOCD_TLS_DATA_PATH":      "tls",
		"ARGOCD_SSH_DATA_PATH":      "ssh",
		"ARGOCD_GNUPGHOME":          "gnupg",
		"ARGOCD_GPG_DATA_PATH":      "gpg",
		"ARGOCD_PLUGINSOCKFILEPATH": "plugins",
	}
	env := []string{
		// helm, git-verify-wrapper.sh and gpg-wrapper.sh first.
		"PATH=" + bins.dir + string(os.PathListSeparator) + os.Getenv("PATH"),
		"KUBECONFIG=" + hubKubeconfig,
		// The in-cluster destination is the hub, through KUBECONFIG.
		"ARGOCD_FAKE_IN_CLUSTER=true",
		"ARGOCD_GPG_ENABLED=false",
		"ARGOCD_RECONCILIATION_TIMEOUT=" + resync.String(),
		"GIT_CONFIG_NOSYSTEM=1",
		// Not the fixed /tmp/reposerver-ask-pass.sock: another run may be
		// using it.
		"ARGOCD_ASK_PASS_SOCK=" + filepath.Join(a.Dir, "askpass.sock"),
		// The components serve /debug/pprof/ on their metrics port when
		// this file says true (argocd-cmd-params-cm's profiler.enabled).
		"ARGOCD_ENABLE_PROFILER_FILE_PATH=" + filepath.Join(a.Dir, "profiler.enabled"),
	}
	for k, d := range dirs {
		p := filepath.Join(a.Dir, d)
		if err := os.MkdirAll(p, 0o700); err != nil {
			return nil, err
		}
		env = append(env, k+"="+p)
	}
	if err := os.WriteFile(filepath.Join(a.Dir, "ssh", "ssh_known_hosts"), nil, 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(a.Dir, "profiler.enabled"), []byte("true"), 0o600); err != nil {
		return nil, err
	}
	return env, nil
}

// start runs one component on nports free ports, which args turns into its
// arguments and a readiness check, and waits until it is ready. A port taken
// between its choice and the bind makes it start again on others.
func (a *ArgoCD) start(t testing.TB, name string, env []string, path string, nports int, args func(ports []int) ([]string, func() error)) {
	t.Helper()
	began := time.Now()
	var err error
	for attempt := range 3 {
		var ports []int
		if ports, err = testenv.FreePorts(nports); err != nil {
			break
		}
		argv, ready := args(ports)
		log := name
		if attempt > 0 {
			log = fmt.Sprintf("%s-%d", name, attempt)
		}
		var p *testenv.Process
		if p, err = testenv.StartProcess(t, a.Dir, log, env, path, argv...); err != nil {
			break
		}
		if err = p.WaitReady(componentTimeout, ready); err == nil {
			t.Logf("%s ready in %s", name, time.Since(began).Round(time.Millisecond))
			return
		}
		p.Stop()
		if !strings.Contains(p.Tail(30), "address already in use") {
			break
		}
	}
	t.Fatalf("starting Argo CD: %v", err)
}

func addr(port int) string { return "127.0.0.1:" + strconv.Itoa(port) }

func httpOK(url string) func() error {
	client := &http.Client{Timeout: 2 * time.Second}
	return func() error {
		resp, err := client.Get(url)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET %s: %s", url, resp.Status)
		}
		return nil
	}
}

// configureArgoCD creates what Argo CD's installation manifests would: its
// namespace, ConfigMaps (argocd-cm with settings added), secret and the
// default project.
func configureArgoCD(ctx context.Context, cfg *rest.Config, resync time.Duration, settings map[string]string) error {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	partOf := map[string]string{"app.kubernetes.io/part-of": "argocd"}
	cm := map[string]string{"timeout.reconciliation": resync.String()}
	maps.Copy(cm, settings)
	cms := map[string]map[string]string{
		"argocd-cm":            cm,
		"argocd-rbac-cm":       {},
		"argocd-cmd-params-cm": {},
	}
	for name, data := range cms {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: Namespace, Labels: partOf}, Data: data}
		if _, err := cs.CoreV1().ConfigMaps(Namespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating %s: %w", name, err)
		}
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return err
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "argocd-secret", Namespace: Namespace, Labels: partOf},
		Data:       map[string][]byte{"server.secretkey": []byte(hex.EncodeToString(key))},
	}
	if _, err := cs.CoreV1().Secrets(Namespace).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating argocd-secret: %w", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	project := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "argoproj.io/v1alpha1",
		"kind":       "AppProject",
		"metadata":   map[string]any{"name": "default", "namespace": Namespace},
		"spec": map[string]any{
			"sourceRepos":              []any{"*"},
			"destinations":             []any{map[string]any{"server": "*", "namespace": "*"}},
			"clusterResourceWhitelist": []any{map[string]any{"group": "*", "kind": "*"}},
		},
	}}
	if _, err := dyn.Resource(projectGVR).Namespace(Namespace).Create(ctx, project, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating the default AppProject: %w", err)
	}
	return nil
}
