package cli

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/pflag"
)

// clusterContexts is --cluster-context CLUSTER=CONTEXT, repeatable, in
// every command that reaches the Argo CDs (checked by live.Kubeconfig.Check).
type clusterContexts map[string]string

// addClusterContextFlag registers --cluster-context on flags, with the one
// help text every command gives it.
func addClusterContextFlag(flags *pflag.FlagSet, c *clusterContexts) {
	*c = clusterContexts{}
	flags.Var(c, "cluster-context", "reach the Argo CD of `CLUSTER=CONTEXT` through that kubeconfig context (repeatable; else the inventory's context:, else a context named like the cluster)")
}

func (c clusterContexts) Set(s string) error {
	for _, pair := range strings.Split(s, ",") {
		name, ctx, ok := strings.Cut(pair, "=")
		name, ctx = strings.TrimSpace(name), strings.TrimSpace(ctx)
		if !ok || name == "" || ctx == "" {
			if pair == s { // pflag's error quotes s already
				return fmt.Errorf("want CLUSTER=CONTEXT")
			}
			return fmt.Errorf("%q: want CLUSTER=CONTEXT", pair)
		}
		if was, ok := c[name]; ok && was != ctx {
			return fmt.Errorf("%s: two contexts, %s and %s", name, was, ctx)
		}
		c[name] = ctx
	}
	return nil
}

func (c clusterContexts) String() string {
	pairs := make([]string, 0, len(c))
	for name, ctx := range c {
		pairs = append(pairs, name+"="+ctx)
	}
	sort.Strings(pairs)
	return strings.Join(pairs, ",")
}

func (c clusterContexts) Type() string { return "CLUSTER=CONTEXT" }
