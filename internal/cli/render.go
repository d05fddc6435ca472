package cli

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/strata-fleet/strata/internal/action"
	"github.com/strata-fleet/strata/internal/output"
)

// renderedHook is called by every render once its targets have rendered,
// before rendered/ changes; tests set it (export_test.go) to pause a run.
// switchingHook is called before each step of a render's switch; tests set
// it to stop a run there, as a kill would.
var (
	renderedHook  func()
	switchingHook func(path string)
)

type renderOptions struct {
	*globals
	check   bool
	noCache bool
	output  outputFormat
}

func newRenderCmd(g *globals) *cobra.Command {
	o := &renderOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "render",
		Short: "Render every target's Argo CD manifests into rendered/",
		Long: `Render merges each target's layered values (defaults, values.yaml, then the
override.yaml and patch-*.yaml files of every level above the target) and
evaluates the templates chart with Helm's engine in two passes. Every target is
rendered and checked in memory before anything is written; then only files
whose content changed are written, each atomically, and stale files are removed.
A run with nothing changed renders nothing and writes nothing.`,
		Example: `  # Render the fleet of the current repository
  strata render

  # In CI: fail and list the files that are out of date
  strata render --check

  # Render a repository elsewhere, ignoring the render cache
  strata --root ./examples/seed-003 render --no-cache`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run()
		},
	}
	cmd.Flags().BoolVar(&o.check, "check", false, "write nothing; exit 1 and list the files that are out of date")
	cmd.Flags().BoolVar(&o.noCache, "no-cache", false, "render every target, even those known to be current")
	addOutputFlag(cmd.Flags(), &o.output, "")
	return cmd
}

func (o *renderOptions) run() error {
	// --check takes the lock shared: it never compares a rendered/ that
	// another process is switching.
	mode := action.ExclusiveLock
	if o.check {
		mode = action.SharedLock
	}
	r, err := o.open(action.Options{Lock: mode})
	if err != nil {
		return err
	}
	defer r.Close()
	a := &action.Render{Check: o.check, Fresh: o.noCache, Rendered: renderedHook, Switching: switchingHook}
	var stopProgress func()
	if !o.output.data() && isTerminal(o.stderr) {
		a.Progress, stopProgress = o.progress()
	}
	res, err := a.Run(r.Repo)
	if stopProgress != nil {
		stopProgress()
	}
	if res == nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(o.stderr, "warning: %s\n", w)
	}
	if err != nil {
		return err
	}
	if j := res.Finished; j != nil {
		fmt.Fprintf(o.stderr, "finished the promotion of %s (%s): rendered/ reflects it\n", j.Plan.Patch, j.Plan.Component)
	}
	return o.report(res.Result)
}

// progress returns a callback that shows a counter on the terminal for runs
// that last more than a moment, and a function that clears it.
func (o *renderOptions) progress() (func(done, total int), func()) {
	var mu sync.Mutex
	start := time.Now()
	shown := false
	update := func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if time.Since(start) < 300*time.Millisecond || (done%20 != 0 && done != total) {
			return
		}
		shown = true
		fmt.Fprintf(o.stderr, "\rrendering %d/%d targets", done, total)
	}
	return update, func() {
		mu.Lock()
		defer mu.Unlock()
		if shown {
			fmt.Fprint(o.stderr, "\r\033[K")
		}
	}
}

type renderReport struct {
	Targets   int             `json:"targets"`
	Rendered  int             `json:"rendered"`
	Created   int             `json:"created"`
	Updated   int             `json:"updated"`
	Deleted   int             `json:"deleted"`
	Unchanged int             `json:"unchanged"`
	Check     bool            `json:"check"`
	UpToDate  bool            `json:"upToDate"`
	Changes   []output.Change `json:"changes"`
	// Resumed: the run first completed an interrupted render's switch,
	// which moved the paths of rendered/ in Completed (both left out
	// otherwise).
	Resumed   bool     `json:"resumed,omitempty"`
	Completed []string `json:"completed,omitempty"`
	// root is the rendered tree's directory with a slash ("rendered/"
	// unless config.yaml's layout says otherwise), for messages.
	root string
}

// newRenderReport summarizes what a run did (nil: no run).
func newRenderReport(res *output.Result, check bool) *renderReport {
	if res == nil {
		return nil
	}
	p := res.Plan
	rep := &renderReport{
		Targets: res.Targets, Rendered: res.Rendered,
		Created: p.Count(output.Create), Updated: p.Count(output.Update), Deleted: p.Count(output.Delete),
		Unchanged: p.Unchanged, Check: check, UpToDate: p.Empty(), Changes: p.Changes,
		Resumed: res.Resumed, Completed: res.Completed, root: res.Root + "/",
	}
	if rep.Changes == nil {
		rep.Changes = []output.Change{}
	}
	return rep
}

// printRerendered says what the render after a promote or pin did, if any.
func printRerendered(w io.Writer, rep *renderReport, verbose bool) {
	if rep == nil {
		return
	}
	if line := completedLine(rep, verbose); line != "" {
		fmt.Fprintln(w, line)
	}
	fmt.Fprintf(w, "%s: %d files created, %d updated, %d removed\n", rep.root, rep.Created, rep.Updated, rep.Deleted)
}

// completedLine says what completing an interrupted render did, or "":
// render, promote and pin say it before what they changed.
func completedLine(rep *renderReport, verbose bool) string {
	if !rep.Resumed {
		return ""
	}
	if len(rep.Completed) == 0 {
		return "completed an interrupted render: its switch was done, its staging area is removed"
	}
	return fmt.Sprintf("completed the switch of an interrupted render: %s moved into place: %s",
		count(len(rep.Completed), "path of "+rep.root, "paths of "+rep.root), nameList(rep.Completed, verbose))
}

func (o *renderOptions) report(res *output.Result) error {
	p := res.Plan
	rep := newRenderReport(res, o.check)
	if o.output.data() {
		if err := o.output.write(o.stdout, rep); err != nil {
			return err
		}
	} else if o.check {
		for _, c := range p.Changes {
			fmt.Fprintf(o.stdout, "%-6s %s\n", verb(c.Op), c.Path)
		}
		for _, d := range p.Dirs {
			fmt.Fprintf(o.stdout, "%-6s %s/\n", "extra", d)
		}
	} else if line := completedLine(rep, o.verbose); line != "" && p.Empty() {
		fmt.Fprintf(o.stdout, "%s; %s is up to date (%d targets)\n", line, rep.root, res.Targets)
	} else if p.Empty() {
		fmt.Fprintf(o.stdout, "%s is up to date (%d targets)\n", rep.root, res.Targets)
	} else {
		if line := completedLine(rep, o.verbose); line != "" {
			fmt.Fprintln(o.stdout, line)
		}
		fmt.Fprintf(o.stdout, "rendered %d of %d targets: %d files created, %d updated, %d removed\n",
			res.Rendered, res.Targets, rep.Created, rep.Updated, rep.Deleted)
	}
	if o.check && !p.Empty() {
		differ := count(len(p.Changes), "file", "files") + " differ"
		if len(p.Dirs) > 0 {
			differ = count(len(p.Changes), "file", "files") + " and " + count(len(p.Dirs), "directory", "directories") + " differ"
		}
		return &exitError{code: exitFindings, msg: rep.root + " is out of date: " + differ + "; run " + o.strata("render")}
	}
	if o.check && !o.output.data() {
		fmt.Fprintf(o.stdout, "%s is up to date (%d targets)\n", rep.root, res.Targets)
	}
	return nil
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func verb(op output.Op) string {
	switch op {
	case output.Create:
		return "new"
	case output.Update:
		return "stale"
	}
	return "extra"
}
