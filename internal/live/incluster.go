package live

import (
	"fmt"
	"os"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/kube"
)

// inCluster reports whether strata runs in a pod without a kubeconfig:
// no --kubeconfig, no $KUBECONFIG, no ~/.kube/config, and
// $KUBERNETES_SERVICE_HOST set. Then it reaches the API server of the
// cluster it runs in with its service account (kube.InCluster).
func (k Kubeconfig) inCluster() bool {
	return kube.NoKubeconfig(k.Path, os.Getenv) && os.Getenv("KUBERNETES_SERVICE_HOST") != ""
}

// saDir is where the pod's service account is mounted.
func (k Kubeconfig) saDir() string {
	if k.serviceAccountDir != "" {
		return k.serviceAccountDir
	}
	return kube.ServiceAccountDir
}

// connectInCluster is Connect in a pod: the service account reaches the
// Argo CD of the cluster it runs in, which must be the fleet's only one
// (the central model's hub); others would need a kubeconfig.
func (k Kubeconfig) connectInCluster(f *fleet.Fleet, c *fleet.Cluster) (*Client, error) {
	if n := len(ArgoCDs(f)); n != 1 {
		return nil, fmt.Errorf("no kubeconfig to reach cluster %s: running in a cluster, strata reaches only the Argo CD of that cluster with its service account, and the fleet has %d; give --kubeconfig", c.Name, n)
	}
	cfg, err := kube.InCluster(k.saDir(), os.Getenv)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 50, 100
	return ClientFor(cfg)
}

// RestConfig is the client configuration of one API server: the
// kubeconfig's context k.Context (default: its current context), or, in a
// pod without a kubeconfig, the pod's service account. The rollout runner
// keeps its Lease there (leader election).
func (k Kubeconfig) RestConfig() (*rest.Config, error) {
	if k.inCluster() {
		cfg, err := kube.InCluster(k.saDir(), os.Getenv)
		if err != nil {
			return nil, err
		}
		return kube.Secure(cfg), nil
	}
	raw, rules, err := k.load()
	if err != nil {
		return nil, err
	}
	cfg, err := clientcmd.NewNonInteractiveClientConfig(*raw, k.Context, &clientcmd.ConfigOverrides{}, rules).ClientConfig()
	if err != nil {
		return nil, kube.ScrubError(err)
	}
	return kube.Secure(cfg), nil
}

// load reads k's kubeconfig (k.Path, else $KUBECONFIG, else
// ~/.kube/config) and returns it with the rules that found it.
func (k Kubeconfig) load() (*clientcmdapi.Config, *clientcmd.ClientConfigLoadingRules, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if k.Path != "" {
		rules.ExplicitPath = k.Path
	}
	raw, err := kube.Load(rules)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the kubeconfig: %w", err)
	}
	return raw, rules, nil
}
