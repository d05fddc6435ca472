package live

import (
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/kube"
	"github.com/strata-fleet/strata/internal/suggest"
)

// Argo CD's resources.
var (
	ApplicationGVR    = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "applications"}
	ApplicationSetGVR = schema.GroupVersionResource{Group: "argoproj.io", Version: "v1alpha1", Resource: "applicationsets"}
)

// DefaultNamespace is Argo CD's namespace unless told otherwise.
const DefaultNamespace = "argocd"

// Connect returns a client of the API server of cluster c, a cluster of
// the inventory that runs Argo CD. Tests hand in clients of their own API
// servers; the CLI uses [Kubeconfig.Connect].
type Connect func(c *fleet.Cluster) (dynamic.Interface, error)

// ArgoCDs returns the clusters of the inventory that run Argo CD: those
// without hub (which manage themselves, distributed model, and their
// spokes, central model), in name order.
func ArgoCDs(f *fleet.Fleet) []*fleet.Cluster {
	var out []*fleet.Cluster
	for _, c := range f.Clusters {
		if c.Hub == "" {
			out = append(out, c)
		}
	}
	return out
}

// ArgoCDOf returns the name of the cluster whose Argo CD holds cluster c's
// Applications: its hub, else itself.
func ArgoCDOf(c *fleet.Cluster) string {
	if c.Hub != "" {
		return c.Hub
	}
	return c.Name
}

// Kubeconfig says how the user reaches the clusters that run Argo CD:
// through contexts of their kubeconfig, never with credentials from the
// repository.
type Kubeconfig struct {
	// Path is the kubeconfig file; "" for $KUBECONFIG, else ~/.kube/config.
	Path string
	// Context is the context of a fleet with one Argo CD (default: the
	// current context).
	Context string
	// Contexts maps cluster names to contexts (a command-line flag).
	Contexts map[string]string

	// serviceAccountDir is where a pod's service account is read in a
	// cluster: kube.ServiceAccountDir, or a test's directory.
	serviceAccountDir string
}

// Connect returns the Connect of f's clusters. The context of a cluster is,
// first found: k.Contexts[name]; the cluster's context: in the inventory; a
// context of the kubeconfig named like the cluster; and, when the fleet has
// one Argo CD only, k.Context or the current context. A cluster with none
// of them is not guessed at: Connect says what to add. In a pod without a
// kubeconfig, the pod's service account (incluster.go).
func (k Kubeconfig) Connect(f *fleet.Fleet) Connect {
	single := len(ArgoCDs(f)) == 1
	return func(c *fleet.Cluster) (dynamic.Interface, error) {
		if k.inCluster() {
			return k.connectInCluster(f, c)
		}
		raw, rules, err := k.load()
		if err != nil {
			return nil, err
		}
		name, err := k.contextOf(c, single, raw.Contexts, raw.CurrentContext)
		if err != nil {
			return nil, err
		}
		cfg, err := clientcmd.NewNonInteractiveClientConfig(*raw, name, &clientcmd.ConfigOverrides{}, rules).ClientConfig()
		if err != nil {
			return nil, kube.ScrubError(fmt.Errorf("context %s: %w", name, err))
		}
		cfg.QPS, cfg.Burst = 50, 100
		return ClientFor(cfg)
	}
}

// Check refuses the names k was given on the command line that are not
// there: a cluster of --cluster-context that the inventory of f does not
// have, a context of --context or --cluster-context that the kubeconfig
// does not have (when it can be read; Connect says why not). The errors
// name the nearest names (suggest.UnknownError).
func (k Kubeconfig) Check(f *fleet.Fleet) error {
	clusters := slices.Sorted(maps.Keys(k.Contexts))
	for _, name := range clusters {
		if f.Cluster(name) == nil {
			return suggest.UnknownFlag("--cluster-context", "cluster", name, f.ClusterNames())
		}
	}
	if k.Context == "" && len(k.Contexts) == 0 {
		return nil
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if k.Path != "" {
		rules.ExplicitPath = k.Path
	}
	raw, err := kube.Load(rules)
	if err != nil || len(raw.Contexts) == 0 {
		return nil
	}
	names := slices.Sorted(maps.Keys(raw.Contexts))
	if k.Context != "" && raw.Contexts[k.Context] == nil {
		return suggest.UnknownFlag("--context", "kubeconfig context", k.Context, names)
	}
	for _, name := range clusters {
		if ctx := k.Contexts[name]; raw.Contexts[ctx] == nil {
			return suggest.UnknownFlag("--cluster-context "+name, "kubeconfig context", ctx, names)
		}
	}
	return nil
}

func (k Kubeconfig) contextOf(c *fleet.Cluster, single bool, contexts map[string]*clientcmdapi.Context, current string) (string, error) {
	if len(contexts) == 0 {
		where := "$KUBECONFIG is not set and ~/.kube/config has none"
		if k.Path != "" {
			where = k.Path + " has none"
		}
		return "", &contextError{fmt.Errorf("no kubeconfig context to reach cluster %s: %s (pass --kubeconfig FILE)", c.Name, where),
			"the kubeconfig has no context (pass --kubeconfig FILE)"}
	}
	has := func(name string) bool { _, ok := contexts[name]; return ok }
	pick := func(name, from string) (string, error) {
		if !has(name) {
			return "", &contextError{fmt.Errorf("%s names context %q, which the kubeconfig does not have (%s)", from, name, suggest.NearestList(name, slices.Sorted(maps.Keys(contexts)), suggest.Shown)),
				"the kubeconfig does not have the context named for it"}
		}
		return name, nil
	}
	switch {
	case k.Contexts[c.Name] != "":
		return pick(k.Contexts[c.Name], "--cluster-context "+c.Name)
	case c.Context != "":
		return pick(c.Context, c.File.Path)
	case has(c.Name):
		return c.Name, nil
	case single && k.Context != "":
		return pick(k.Context, "--context")
	case single && current != "":
		return current, nil
	}
	return "", &contextError{fmt.Errorf("no kubeconfig context for cluster %s: add context: <name> to %s, pass --cluster-context %s=<context>, or name a context %s",
		c.Name, c.File.Path, c.Name, c.Name),
		"no kubeconfig context is named for it (add context: to its file in config/clusters/, pass --cluster-context NAME=CONTEXT, or name a context like it)"}
}
