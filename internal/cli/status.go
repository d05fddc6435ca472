package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/strata-fleet/strata/internal/action"
	"github.com/strata-fleet/strata/internal/atomicfile"
	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/rollout/inflight"
	"github.com/strata-fleet/strata/internal/status"
)

type statusOptions struct {
	*globals
	output outputFormat
	html   string
	filter status.Filter
	live   liveOptions
}

func newStatusCmd(g *globals) *cobra.Command {
	o := &statusOptions{globals: g}
	cmd := &cobra.Command{
		Use:         "status",
		Annotations: map[string]string{reportAnnotation: "yes"},
		Short:       "Show the rollout matrix: every target by every component, and the patches rolling out",
		Long: `Status shows the rollout matrix (every target by every component: its version
and the patches in effect), where each patch stands and the rollouts in flight;
--live adds what Argo CD says of every cell, -o json and --html the same data.
docs/commands.md#strata-status says it in full.`,
		Example: `  # The matrix on the terminal
  strata status

  # One component, the production targets
  strata status --component cert-manager --target 'production/*'

  # Where patch-003 stands
  strata status --patch 003

  # For scripts
  strata status -o json | jq '.clusterTypes[].patches[] | select(.next != null)'

  # A page to publish from CI
  strata status --html status.html

  # What the clusters run: synced at the last change? healthy?
  strata status --live --cluster-context hub-use1=admin@hub-use1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.live.validate(); err != nil {
				return err
			}
			return o.run(cmd.Context())
		},
	}
	o.live.addFlags(cmd.Flags(), "add what Argo CD says of every cell: synced at the last change, healthy, drifted or failed; and the stopWhen conditions holding rollouts")
	addOutputFlag(cmd.Flags(), &o.output, "")
	cmd.Flags().StringSliceVar(&o.filter.Components, "component", nil, "show only these `COMPONENT`s (repeatable, or comma-separated)")
	cmd.Flags().StringVar(&o.filter.Target, "target", "", "show only the targets that match `GLOB` (or whose parents do), as diff --target")
	_ = cmd.RegisterFlagCompletionFunc("target", g.completeTargetPattern())
	cmd.Flags().StringVar(&o.filter.Patch, "patch", "", "show only the patch `NAME` (patch-001 or 001) and the components that have it")
	cmd.Flags().StringVar(&o.html, "html", "", "write the status as a self-contained HTML page to `FILE` (- for standard output)")
	return cmd
}

func (o *statusOptions) run(ctx context.Context) error {
	r, rr, err := o.openRendered()
	if err != nil {
		return err
	}
	defer r.Close()
	s, err := status.Compute(rr.Fleet)
	if err != nil {
		return err
	}
	if o.filter.Patch != "" {
		if err := status.ReadFolded(ctx, s, rr.Fleet, git.Exec{Dir: r.dir}, o.filter.Patch); err != nil {
			return err
		}
	}
	if s, err = s.Filter(o.filter); err != nil {
		return err
	}
	var unread error
	flights := inflight.FlightOptions{Git: git.Exec{Dir: r.dir}, Now: time.Now(), Unrendered: func(dirs []string) ([]string, error) {
		// As the rollout looks before it takes a patch as delivered where
		// it is (a patch committed without strata render is not).
		return (&action.Step{Dir: r.dir, FS: r.fsys}).UnrenderedIn(rr.Fleet.Config, dirs)
	}}
	if o.live.on {
		rep, err := o.live.load(ctx, r.dir, rr, false)
		if err != nil {
			return err
		}
		s = s.WithLive(rep)
		if err := status.ReadUnhealthy(ctx, git.Exec{Dir: r.dir}, s); err != nil {
			return err
		}
		unread = noneRead(rep)
		flights.Live, flights.Alerts = rep, true
	}
	if err := status.ReadRollouts(ctx, s, rr.Fleet, r.fsys, flights); err != nil {
		return err
	}
	if err := o.write(s); err != nil {
		return err
	}
	return unread
}

// write prints s as asked: an HTML page, data, or the table.
func (o *statusOptions) write(s *status.Status) error {
	if o.html != "" {
		if o.html == "-" {
			return status.WriteHTML(o.stdout, s)
		}
		if err := writeHTMLFile(o.html, s); err != nil {
			return err
		}
		if !o.output.data() {
			fmt.Fprintf(o.stdout, "wrote %s\n", o.html)
			return nil
		}
	}
	if o.output.data() {
		return o.output.write(o.stdout, s)
	}
	return status.WriteTable(o.stdout, s, status.TableOptions{Width: o.width(), Color: useColor(o.stdout)})
}

// noneRead is the failure (exit 5) of a status --live or diff --live that
// could read no Argo CD: its output shows the matrix (or the comparison)
// all the same, with the reasons, one line per reason.
func noneRead(rep *live.Report) error {
	for _, in := range rep.ArgoCDs {
		if in.Error == "" {
			return nil
		}
	}
	if len(rep.ArgoCDs) == 0 {
		return &exitError{code: exitFailure, msg: "--live: no cluster of the inventory runs Argo CD (every one has a hub)"}
	}
	return &exitError{code: exitFailure, msg: fmt.Sprintf("--live: none of the %d Argo CDs could be read", len(rep.ArgoCDs))}
}

// writeHTMLFile writes the status page to file atomically (package
// atomicfile: never through a symbolic link).
func writeHTMLFile(file string, s *status.Status) error {
	r, err := os.OpenRoot(filepath.Dir(file))
	if err != nil {
		return fmt.Errorf("--html %s: %w", file, err)
	}
	defer r.Close()
	err = atomicfile.Write(r, filepath.Base(file), func(w io.Writer) error { return status.WriteHTML(w, s) })
	if err != nil {
		return fmt.Errorf("--html %s: %w", file, err)
	}
	return nil
}

// width is the terminal's width, else $COLUMNS, else no limit.
func (o *statusOptions) width() int {
	if f, ok := o.stdout.(*os.File); ok && isTerminal(f) {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return 0
}

// useColor reports whether output to w gets ANSI colours: on a terminal,
// unless NO_COLOR is set or TERM is dumb.
func useColor(w any) bool {
	f, ok := w.(*os.File)
	return ok && isTerminal(f) && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
}
