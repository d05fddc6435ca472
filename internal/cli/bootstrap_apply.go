package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/strata-fleet/strata/internal/bootstrap"
	"github.com/strata-fleet/strata/internal/fleet"
)

// applyAll applies bundles, each through the kubeconfig context its
// cluster is named by (bootstrap.Kubeconfig.Target). Every target is chosen
// and the plan printed before anything is written; on a terminal the plan
// is confirmed unless --yes.
func (o *bootstrapOptions) applyAll(ctx context.Context, f *fleet.Fleet, bundles []*bootstrap.Bundle) error {
	kc, err := bootstrap.ReadKubeconfig(o.kubeconfig)
	if err != nil {
		return err
	}
	plans := make([]bootstrap.Plan, len(bundles))
	var errs []error
	for i, b := range bundles {
		t, err := kc.Target(f, b.ApplyTo, o.context)
		if err != nil && len(bundles) > 1 {
			err = fmt.Errorf("the bootstrap of %s (to %s): %w", b.Cluster, b.ApplyTo, err)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		plans[i] = bootstrap.NewPlan(b, t, o.installArgoCD)
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	w := o.stdout
	if o.output.data() {
		w = o.stderr
	}
	n := 0
	for _, p := range plans {
		printPlan(w, p)
		n += len(p.Objects)
	}
	if err := o.confirm(n, len(plans)); err != nil {
		return err
	}
	for i, b := range bundles {
		if err := o.applyBundle(ctx, b, plans[i], len(bundles) > 1); err != nil {
			if len(bundles) > 1 {
				return fmt.Errorf("bootstrapping %s through context %s: %w", b.Cluster, plans[i].Target.Context, err)
			}
			return err
		}
	}
	return nil
}

// printPlan says what a bundle writes where.
func printPlan(w io.Writer, p bootstrap.Plan) {
	fmt.Fprintf(w, "plan: the bootstrap of %s (%s model) goes to %s through context %s (chosen by %s), server %s:\n",
		p.Cluster, p.Model, p.ApplyTo, p.Target.Context, p.Target.ChosenBy, p.Target.Server)
	if p.Install != "" {
		fmt.Fprintf(w, "  Argo CD's Helm release, from %s, unless it is installed\n", p.Install)
	}
	for _, obj := range p.Objects {
		fmt.Fprintf(w, "  %s\n", obj)
	}
}

// confirm asks on a terminal whether to apply, unless --yes. Without a
// terminal (CI) it does not ask: the target was named (a context given or
// the inventory's), and the plan is in the log.
func (o *bootstrapOptions) confirm(objects, clusters int) error {
	if o.yes || !o.interactive {
		return nil
	}
	what := fmt.Sprintf("%d objects", objects)
	if clusters > 1 {
		what += fmt.Sprintf(" to %d clusters", clusters)
	}
	fmt.Fprintf(o.stderr, "apply these %s? [y/N] ", what)
	answer, err := bufio.NewReader(o.stdin).ReadString('\n')
	if err != nil && answer == "" {
		return errors.New("nothing applied: no answer (pass --yes to apply without asking)")
	}
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return nil
	}
	return errors.New("nothing applied")
}

type applyReport struct {
	Cluster string             `json:"cluster"`
	Model   bootstrap.Model    `json:"model"`
	ApplyTo string             `json:"applyTo"`
	Context string             `json:"context"`
	Server  string             `json:"server"`
	Results []bootstrap.Result `json:"results"`
}

// applyBundle applies one bundle as planned; with several, its results are
// headed by its cluster.
func (o *bootstrapOptions) applyBundle(ctx context.Context, b *bootstrap.Bundle, p bootstrap.Plan, headed bool) error {
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	cfg, err := p.Target.RESTConfig()
	if err != nil {
		return fmt.Errorf("reaching %s: %w", b.ApplyTo, err)
	}
	// Each request, discovery's too (client-go gives it no context), ends
	// by --timeout: a server that hangs does not hold the command.
	cfg.Timeout = o.timeout
	requestTimeout := o.timeout.String()
	rep := applyReport{Cluster: b.Cluster, Model: b.Model, ApplyTo: b.ApplyTo, Context: p.Target.Context, Server: p.Target.Server,
		Results: []bootstrap.Result{}}
	if headed && !o.output.data() {
		fmt.Fprintf(o.stdout, "%s:\n", b.Cluster)
	}
	report := func(r bootstrap.Result) {
		rep.Results = append(rep.Results, r)
		if !o.output.data() {
			fmt.Fprintln(o.stdout, r)
		}
	}
	ap, err := bootstrap.NewApplier(cfg)
	if err != nil {
		return err
	}
	if o.installArgoCD != "" {
		res, err := bootstrap.InstallArgoCD(ctx, bootstrap.InstallOptions{
			Chart: o.installArgoCD, RepoURL: o.argoRepo, Version: o.argoVersion, ValuesFiles: o.argoValues,
			Namespace: o.opts.Namespace, Getter: withTimeout(p.Target.Getter(o.opts.Namespace), requestTimeout), Timeout: o.timeout,
		})
		if err != nil {
			return err
		}
		report(res)
		ap.WaitForKinds = time.Minute
	}
	results, err := ap.Apply(ctx, b.Objects)
	for _, r := range results {
		report(r)
	}
	if err != nil {
		return err
	}
	if o.output.data() {
		return o.output.write(o.stdout, rep)
	}
	return nil
}

// withTimeout bounds each request of Helm's clients by timeout (as
// kubectl's --request-timeout).
func withTimeout(g *genericclioptions.ConfigFlags, timeout string) *genericclioptions.ConfigFlags {
	g.Timeout = &timeout
	return g
}
