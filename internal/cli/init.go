package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/strata-fleet/strata/internal/action"
	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/scaffold"
)

type initOptions struct {
	*globals
	opts   scaffold.Options
	noGit  bool
	output outputFormat
}

type initReport struct {
	Dir     string       `json:"dir"`
	Written []string     `json:"written"`
	Targets int          `json:"targets"`
	Git     scaffold.Git `json:"git"`
}

func newInitCmd(g *globals) *cobra.Command {
	o := &initOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Start a new fleet repository with a small working example",
		Long: `Init writes a small fleet repository into DIR (default: the current directory),
with CI definitions for GitHub Actions and GitLab CI, renders it and makes DIR a
Git repository. docs/commands.md#strata-init says it in full.`,
		Example: `  strata init my-fleet --repo-url https://github.com/acme/fleet.git
  cd my-fleet && strata render --check && strata bootstrap dev-us-east1`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			return o.run(dir)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.opts.RepoURL, "repo-url", "", "the URL Argo CD pulls the repository from (default: a placeholder to replace)")
	f.BoolVar(&o.noGit, "no-git", false, "do not make DIR a Git repository")
	addOutputFlag(f, &o.output, "")
	return cmd
}

func (o *initOptions) run(dir string) error {
	done, err := (&action.Init{Dir: dir, Options: o.opts, NoGit: o.noGit}).Run()
	if err != nil {
		return err
	}
	rep := initReport{Dir: dir, Written: done.Written, Targets: done.Targets, Git: done.Git}
	if o.output.data() {
		return o.output.write(o.stdout, rep)
	}
	w := o.stdout
	fmt.Fprintf(w, "wrote %d files and rendered %d targets into %s\n", len(rep.Written), rep.Targets, dir)
	switch {
	case rep.Git.Commit != "":
		fmt.Fprintf(w, "made %s a Git repository (branch main), first commit %s\n", dir, git.Short(rep.Git.Commit))
	case rep.Git.Initialized:
		fmt.Fprintf(w, "made %s a Git repository (branch main), files staged, not committed: %s\n", dir, rep.Git.Reason)
	case rep.Git.Reason != "":
		fmt.Fprintf(w, "nothing committed: %s\n", rep.Git.Reason)
	}
	if o.opts.RepoURL == "" {
		fmt.Fprintf(w, "next: set repository.url in %s/config/config.yaml to where Argo CD pulls this repository from\n", dir)
	}
	fmt.Fprintf(w, "next: edit config/, then run strata render (in %s)\n", dir)
	return nil
}
