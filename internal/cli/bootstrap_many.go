package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/strata-fleet/strata/internal/bootstrap"
	"github.com/strata-fleet/strata/internal/diff"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/render"
)

// validateMany checks the flags of a bootstrap of several clusters.
func (o *bootstrapOptions) validateMany(args int) error {
	many := o.all || o.selector != ""
	switch {
	case o.all && o.selector != "":
		return usageErrorf("--all and --selector both choose the clusters: give one")
	case many && args > 0:
		return usageErrorf("name a cluster, or choose clusters with --all or --selector, not both")
	case !many && args == 0:
		return usageErrorf("name a cluster of the inventory, or choose clusters with --all or --selector")
	case !many && o.changedSince != "":
		return usageErrorf("--changed-since goes with --all or --selector")
	case many && o.context != "":
		return usageErrorf("--context names one cluster's API server: with several clusters, each is reached through the context its inventory file names (context:), else the context named as the cluster")
	case many && o.installArgoCD != "":
		return usageErrorf("--install-argocd installs into one cluster: bootstrap it by name")
	case many && (o.credContext != "" || o.tokenFile != ""):
		return fmt.Errorf("credentials register one spoke: bootstrap it by name")
	}
	return nil
}

// runMany bootstraps the clusters --all or --selector chooses, or those of
// them whose bootstrap changed since --changed-since.
func (o *bootstrapOptions) runMany(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	r, rr, err := o.openRendered()
	if err != nil {
		return err
	}
	defer r.Close()
	m, err := o.buildMany(rr)
	if err != nil {
		return err
	}
	if o.selector != "" && len(m.Bundles)+len(m.Skipped) == 0 {
		return bootstrap.NoneSelected(rr.Fleet, o.selector)
	}
	if o.changedSince != "" {
		base, err := o.baseMany(r.dir)
		if err != nil {
			return err
		}
		m = m.ChangedSince(base)
	}
	for _, s := range m.Skipped {
		fmt.Fprintf(o.stderr, "strata: note: %s skipped: %s\n", s.Cluster, s.Reason)
	}
	for _, b := range m.Bundles {
		for _, n := range b.Notes {
			fmt.Fprintf(o.stderr, "strata: note: %s: %s\n", b.Cluster, n)
		}
	}
	if len(m.Bundles) == 0 {
		if o.changedSince != "" {
			fmt.Fprintf(o.stderr, "strata: no cluster's bootstrap changed since %s: nothing to apply\n", o.changedSince)
		} else {
			fmt.Fprintln(o.stderr, "strata: no cluster matches: nothing to apply")
		}
		if o.output == "json" || (o.apply && o.output.data()) {
			return o.output.write(o.stdout, m)
		}
		return nil
	}
	var names []string
	for _, b := range m.Bundles {
		names = append(names, b.Cluster+" (to "+b.ApplyTo+")")
	}
	fmt.Fprintf(o.stderr, "strata: %d clusters to bootstrap: %s\n", len(m.Bundles), strings.Join(names, ", "))
	if !o.apply {
		return o.printMany(m)
	}
	return o.applyAll(ctx, rr.Fleet, m.Bundles)
}

func (o *bootstrapOptions) buildMany(rr *render.Renderer) (*bootstrap.Many, error) {
	match := func(*fleet.Cluster) bool { return true }
	if o.selector != "" {
		var err error
		if match, err = bootstrap.Selector(rr.Fleet, o.selector); err != nil {
			return nil, err
		}
	}
	return bootstrap.BuildMany(rr.Fleet, rr.Chart, match, o.opts)
}

// baseMany is the bootstrap of the same clusters by the fleet at
// --changed-since.
func (o *bootstrapOptions) baseMany(dir string) (*bootstrap.Many, error) {
	rev, err := diff.ReadRevision(dir, o.changedSince)
	if err != nil {
		return nil, err
	}
	if rev.Empty {
		return &bootstrap.Many{}, nil
	}
	rr, err := render.Load(rev.FS)
	if err != nil {
		return nil, fmt.Errorf("the fleet at %s: %w", o.changedSince, err)
	}
	m, err := o.buildMany(rr)
	if err != nil {
		return nil, fmt.Errorf("the bootstrap of the fleet at %s: %w", o.changedSince, err)
	}
	return m, nil
}

// printMany prints every bundle, each headed by where it goes.
func (o *bootstrapOptions) printMany(m *bootstrap.Many) error {
	if o.output == "json" {
		return o.output.write(o.stdout, m)
	}
	for _, b := range m.Bundles {
		data, err := bootstrap.Manifest(b)
		if err != nil {
			return err
		}
		if _, err := o.stdout.Write(data); err != nil {
			return err
		}
	}
	return nil
}
