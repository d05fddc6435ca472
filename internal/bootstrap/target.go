package bootstrap

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/kube"
	"github.com/strata-fleet/strata/internal/suggest"
	"github.com/strata-fleet/strata/internal/values"
)

// Kubeconfig is the user's kubeconfig, read once: the contexts through
// which a bundle may be applied. Reading it never falls back to anything
// (no in-cluster configuration, no localhost:8080): a kubeconfig without
// contexts is an error that says where strata looked.
type Kubeconfig struct {
	path  string
	rules *clientcmd.ClientConfigLoadingRules
	raw   *clientcmdapi.Config
}

// ReadKubeconfig reads the kubeconfig file path, or with "" the files of
// $KUBECONFIG, else ~/.kube/config.
func ReadKubeconfig(path string) (*Kubeconfig, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = path
	raw, err := kube.Load(rules)
	switch {
	case errors.Is(err, fs.ErrNotExist) && path != "":
		return nil, fmt.Errorf("reading the kubeconfig: %s does not exist", path)
	case err != nil:
		return nil, fmt.Errorf("reading the kubeconfig: %w", err)
	}
	k := &Kubeconfig{path: path, rules: rules, raw: raw}
	if len(raw.Contexts) == 0 {
		return nil, fmt.Errorf("no kubeconfig context: %s; --apply writes to a cluster's API server through a context of your kubeconfig (--kubeconfig FILE --context NAME)", k.where())
	}
	return k, nil
}

// where says which files the kubeconfig came from, for errors.
func (k *Kubeconfig) where() string {
	if k.path != "" {
		return k.path + " has none"
	}
	if env := os.Getenv(clientcmd.RecommendedConfigPathEnvVar); env != "" {
		for _, f := range filepath.SplitList(env) {
			if _, err := os.Stat(f); err == nil {
				return "$KUBECONFIG (" + env + ") has none"
			}
		}
		return "$KUBECONFIG (" + env + ") names no file that exists"
	}
	if _, err := os.Stat(clientcmd.RecommendedHomeFile); err != nil {
		return clientcmd.RecommendedHomeFile + " does not exist and $KUBECONFIG is not set"
	}
	return clientcmd.RecommendedHomeFile + " has none"
}

// Target is where a bundle is applied: a context of the user's kubeconfig
// and the API server it reaches.
type Target struct {
	Context string `json:"context"`
	Server  string `json:"server"`
	// ChosenBy says what named the context: --context, the inventory's
	// context:, or the kubeconfig's context named as the cluster.
	ChosenBy string `json:"chosenBy"`
	kc       *Kubeconfig
}

// Target chooses the context through which the objects of a bundle reach
// cluster applyTo of f (a Bundle's ApplyTo): the context explicit (from
// --context), else the cluster's context: in the inventory, else a context
// of the kubeconfig named as the cluster. The current context is never used
// because it is current: what is written where must be named. The context
// is refused when it reaches the server the inventory gives another
// cluster, or when explicit differs from the inventory's context and the
// two reach different servers.
func (k *Kubeconfig) Target(f *fleet.Fleet, applyTo, explicit string) (*Target, error) {
	c := f.Cluster(applyTo)
	if c == nil {
		return nil, suggest.Unknown("cluster", applyTo, f.ClusterNames())
	}
	t := &Target{kc: k}
	switch {
	case explicit != "":
		t.Context, t.ChosenBy = explicit, "--context"
	case c.Context != "":
		t.Context, t.ChosenBy = c.Context, "context: in "+c.File.Path
	case k.raw.Contexts[c.Name] != nil:
		t.Context, t.ChosenBy = c.Name, "the kubeconfig context named "+c.Name
	default:
		return nil, k.unnamed(c)
	}
	if k.raw.Contexts[t.Context] == nil {
		return nil, k.missing(c, t)
	}
	t.Server = k.server(t.Context)
	if err := k.checkServer(f, c, t); err != nil {
		return nil, err
	}
	return t, nil
}

// unnamed is the error of a cluster that no context names.
func (k *Kubeconfig) unnamed(c *fleet.Cluster) error {
	current := "the kubeconfig has no current context"
	if cur := k.raw.CurrentContext; cur != "" {
		current = fmt.Sprintf("the current context, %s (%s), is used only when named", cur, k.server(cur))
	}
	return fmt.Errorf("no kubeconfig context is named for cluster %s: %s\n"+
		"    pass --context CONTEXT, add context: CONTEXT to %s, or name a kubeconfig context %s (contexts: %s)",
		c.Name, current, c.File.Path, c.Name, k.nearestContexts(c.Name))
}

// missing is the error of a context the kubeconfig does not have.
func (k *Kubeconfig) missing(c *fleet.Cluster, t *Target) error {
	if t.ChosenBy == "--context" {
		return suggest.UnknownFlag("--context", "kubeconfig context", t.Context, k.names())
	}
	hint := fmt.Sprintf("the kubeconfig has the contexts %s", k.nearestContexts(t.Context))
	v, _ := c.File.Value()
	return &values.Error{Pos: v.Get("context").Pos,
		Msg: fmt.Sprintf("cluster %s is reached through context %q, which the kubeconfig does not have", c.Name, t.Context), Hint: hint}
}

// checkServer refuses a context that reaches another cluster of the
// inventory, or another server than the context the inventory names. URLs
// are compared as servers (kube.Servers.Same: normalised, and hosts that
// resolve to a common address on the same scheme, port and path are one),
// the name look-ups bounded by checkTimeout in all.
func (k *Kubeconfig) checkServer(f *fleet.Fleet, c *fleet.Cluster, t *Target) error {
	ctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
	defer cancel()
	var servers kube.Servers
	for _, o := range f.Clusters {
		if o.Server == "" {
			continue
		}
		if same, why := servers.Same(ctx, o.Server, t.Server); same {
			v, _ := o.File.Value()
			msg := fmt.Sprintf("context %s (chosen by %s) reaches %s, the API server of cluster %s, but these objects go to %s",
				t.Context, t.ChosenBy, t.Server, o.Name, c.Name)
			if strings.TrimSuffix(o.Server, "/") != strings.TrimSuffix(t.Server, "/") {
				msg += fmt.Sprintf(" (its server is %s: %s)", o.Server, why)
			}
			return &values.Error{Pos: v.Get("server").Pos, Msg: msg, Hint: fmt.Sprintf("give the context of %s", c.Name)}
		}
	}
	if t.ChosenBy != "--context" || c.Context == "" || c.Context == t.Context || k.raw.Contexts[c.Context] == nil {
		return nil
	}
	want := k.server(c.Context)
	if same, _ := servers.Same(ctx, want, t.Server); !same {
		v, _ := c.File.Value()
		return &values.Error{Pos: v.Get("context").Pos,
			Msg: fmt.Sprintf("--context %s reaches %s, but the context of cluster %s, %s, reaches %s",
				t.Context, t.Server, c.Name, c.Context, want),
			Hint: fmt.Sprintf("leave --context out to use %s, or correct context: in %s", c.Context, c.File.Path)}
	}
	return nil
}

func (k *Kubeconfig) server(context string) string {
	if ctx := k.raw.Contexts[context]; ctx != nil {
		if cl := k.raw.Clusters[ctx.Cluster]; cl != nil {
			return cl.Server
		}
	}
	return "no server"
}

func (k *Kubeconfig) names() []string { return slices.Sorted(maps.Keys(k.raw.Contexts)) }

// nearestContexts names the kubeconfig's contexts; when there are many,
// the nearest to name and how many more there are.
func (k *Kubeconfig) nearestContexts(name string) string {
	names := k.names()
	if len(names) <= suggest.Shown {
		return strings.Join(names, ", ")
	}
	near, _ := suggest.Nearest(name, names, suggest.Shown)
	return fmt.Sprintf("%s and %d more", strings.Join(near, ", "), len(names)-len(near))
}

// checkTimeout bounds the name look-ups of checkServer.
const checkTimeout = 10 * time.Second

// RESTConfig is the client configuration of the target's context.
func (t *Target) RESTConfig() (*rest.Config, error) {
	cfg, err := clientcmd.NewNonInteractiveClientConfig(*t.kc.raw, t.Context, &clientcmd.ConfigOverrides{}, t.kc.rules).ClientConfig()
	if err != nil {
		// client-go quotes what it refuses (a proxy-url, password and all).
		return nil, kube.ScrubError(fmt.Errorf("context %s: %w", t.Context, err))
	}
	return cfg, nil
}

// Getter reaches the target for Helm, with namespace as the namespace of
// objects that name none.
func (t *Target) Getter(namespace string) *genericclioptions.ConfigFlags {
	return KubeGetter(t.kc.path, t.Context, namespace)
}

// Plan is what applying a bundle writes where: shown before anything is
// written.
type Plan struct {
	Cluster string  `json:"cluster"`
	Model   Model   `json:"model"`
	ApplyTo string  `json:"applyTo"`
	Target  *Target `json:"target"`
	// Install is the Argo CD chart installed first, unless its release
	// exists; "" for none.
	Install string `json:"install,omitempty"`
	// Objects are kind/namespace/name, in the order they are applied.
	Objects []string `json:"objects"`
}

// NewPlan is the plan of applying b through t, after installing Argo CD
// from chart install when it is not "".
func NewPlan(b *Bundle, t *Target, install string) Plan {
	p := Plan{Cluster: b.Cluster, Model: b.Model, ApplyTo: b.ApplyTo, Target: t, Install: install}
	for _, o := range b.Objects {
		p.Objects = append(p.Objects, describe(o))
	}
	return p
}
