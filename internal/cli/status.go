package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/strata-fleet/strata/internal/atomicfile"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/status"
)

type statusOptions struct {
	*globals
	output outputFormat
	html   string
}

func newStatusCmd(g *globals) *cobra.Command {
	o := &statusOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the rollout matrix: every target by every component, and the patches rolling out",
		Long: `Status shows the rollout matrix: one row per target, in sequence order and
grouped by dimension, one column per component. Each cell is the component's
effective version there (its sources' targetRevision after the merge) and the
patches in effect ("+001" for patch-001). Below it, each patch: its latest
location, how many targets have it, where the next promotion takes it and the
manual gates ahead.

On a terminal the table fits the window's width (COLUMNS sets it elsewhere) and
is coloured. -o json prints the same data; --html FILE writes it as one
self-contained page.`,
		Example: `  # The matrix on the terminal
  strata status

  # For scripts
  strata status -o json | jq '.clusterTypes[].patches[] | select(.next != null)'

  # A page to publish from CI
  strata status --html status.html`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if err := o.output.validate(); err != nil {
				return err
			}
			return o.run()
		},
	}
	cmd.Flags().StringVarP((*string)(&o.output), "output", "o", "", "output format: text or json")
	cmd.Flags().StringVar(&o.html, "html", "", "write the status as a self-contained HTML page to `FILE` (- for standard output)")
	return cmd
}

func (o *statusOptions) run() error {
	r, err := o.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	f, err := fleet.Load(r.fsys)
	if err != nil {
		return err
	}
	s, err := status.Compute(f)
	if err != nil {
		return err
	}
	if o.html != "" {
		if o.html == "-" {
			return status.WriteHTML(o.stdout, s)
		}
		if err := writeHTMLFile(o.html, s); err != nil {
			return err
		}
		if !o.output.json() {
			fmt.Fprintf(o.stdout, "wrote %s\n", o.html)
			return nil
		}
	}
	if o.output.json() {
		return writeJSON(o.stdout, s)
	}
	return status.WriteTable(o.stdout, s, status.TableOptions{Width: o.width(), Color: useColor(o.stdout)})
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
