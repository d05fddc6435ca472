package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/strata-fleet/strata/internal/hint"
	"github.com/strata-fleet/strata/internal/kube"
	"github.com/strata-fleet/strata/internal/printable"
)

// Main runs strata with args and returns the process exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	return MainContext(context.Background(), args, stdout, stderr)
}

// MainContext is Main with a context that ends the commands that wait
// (rollout) when it is done, as an interrupt does.
func MainContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	tuneGC()
	quietKlog()
	g := &globals{stdin: os.Stdin, interactive: isTerminal(os.Stdin), stdout: stdout, stderr: stderr, args: args}
	cmd := newRoot(g)
	cmd.SetArgs(args)
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	ran, err := cmd.ExecuteContextC(ctx)
	if g.restoreKlog != nil {
		g.restoreKlog()
	}
	if err == nil {
		return 0
	}
	if jsonOutput(ran) {
		printJSONError(stderr, err, g.clean)
		return exitCode(err)
	}
	var ex *exitError
	if errors.As(err, &ex) {
		if ex.msg != "" {
			fmt.Fprintf(stderr, "strata: %s\n", g.clean(ex))
		}
		return ex.code
	}
	// A report as data lists every error: a script reads them all.
	printError(stderr, err, g.verbose || outputFormat(outputFlag(ran)).data(), g.clean)
	return exitCode(err)
}

// exitError ends a command with a code and a one-line message, for checks
// that fail after printing their report.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// shownErrors is how many of a list of errors printError prints, unless
// told to print them all (-o json, -o yaml).
const shownErrors = 20

// printError prints err as "strata: <first line>" then its details; joined
// errors each get their own block, after a line that says how many there
// are, and how many of them are shown.
func printError(w io.Writer, err error, all bool, clean func(error) string) {
	errs := errorList(err)
	total := len(errs)
	switch {
	case total > shownErrors && !all:
		fmt.Fprintf(w, "strata: %d errors, the first %d shown (-v or -o json lists them all)\n", total, shownErrors)
		errs = errs[:shownErrors]
	case total > 1:
		fmt.Fprintf(w, "strata: %d errors\n", total)
	}
	for _, e := range errs {
		msg := strings.TrimRight(clean(e), "\n")
		fmt.Fprintf(w, "strata: %s\n", escapeControls(msg))
	}
	if len(errs) < total {
		fmt.Fprintf(w, "strata: %d of %d errors shown\n", len(errs), total)
	}
}

// clean is err's message as strata prints it: credentials scrubbed, and
// the next commands the libraries name as data (package hint) printed
// with --root as the CLI prints its own.
func (g *globals) clean(err error) string {
	return printable.String(kube.Scrub(hint.Message(err, g.next)))
}

// errorList is the errors err joins, or err alone.
func errorList(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// escapeControls writes the characters of s that do not print as Go
// escapes, keeping line breaks and tabs: an error may quote the repository.
func escapeControls(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '\n' || r == '\t' || strconv.IsPrint(r) {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteRune(r)
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}

// globals are the flags and streams every command shares.
type globals struct {
	stdin       io.Reader
	interactive bool // stdin is a terminal: a command may ask

	stdout, stderr io.Writer
	root           string
	args           []string      // the command line, shown to whoever waits for the lock
	wait           time.Duration // how long a writing command waits for the repository lock
	verbose, quiet bool          // -v, -q (verbosity.go)
	restoreKlog    func()        // set while -v lets client-go's warnings through
}

func newRoot(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "strata",
		Short: "Render, promote and bootstrap a fleet of Kubernetes clusters run by Argo CD",
		Long: `strata runs a fleet of Kubernetes clusters with Argo CD from one Git repository.

The fleet is a hierarchy (environments -> sectors -> regions, or any dimensions
you declare in config/config.yaml). Configuration is layered: defaults, base
values, overrides per level, and patches being rolled out. strata renders the
exact Argo CD Applications and ApplicationSets of every target into rendered/.`,
		Example: `  # Start a fleet repository and render it
  strata init my-fleet && cd my-fleet

  # Re-render after editing config/, from anywhere inside the repository
  strata render

  # Work on a repository elsewhere
  strata --root ../fleet render --check`,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	cmd.PersistentFlags().DurationVar(&g.wait, "wait", 0, "how long a command that writes the repository waits for another one to finish (default: fail at once, naming it)")
	var version strings.Builder
	printVersion(&version, readVersion())
	cmd.Version = "set" // makes cobra add --version; the template prints it all
	cmd.SetVersionTemplate(version.String())
	cmd.PersistentFlags().StringVar(&g.root, "root", "", "the fleet repository (default: the nearest directory upwards that holds config/config.yaml)")
	// Declared before cobra adds --version, so that -v is --verbose, as in
	// kubectl, and --version has no shorthand.
	cmd.PersistentFlags().BoolVarP(&g.verbose, "verbose", "v", false, "print more: every target of a grouped plan or finding, and the warnings of the libraries strata drives")
	cmd.PersistentFlags().BoolVarP(&g.quiet, "quiet", "q", false, "print no progress or summary lines: errors, and the report -o json|yaml asks for, only")
	cmd.PersistentPreRunE = func(c *cobra.Command, _ []string) error {
		if g.verbose && g.quiet {
			return usageErrorf("-q and -v: choose one")
		}
		if err := checkOutput(c); err != nil {
			return err
		}
		g.quietOutput(c)
		g.restoreKlog = g.verboseOutput()
		return nil
	}
	cmd.AddCommand(
		newRenderCmd(g),
		newPromoteCmd(g),
		newInitCmd(g),
		newVersionCmd(g),
		newBootstrapCmd(g),
		newPinCmd(g),
		newStatusCmd(g),
		newDiffCmd(g),
		newExplainCmd(g),
		newServeCmd(g),
		newValidateCmd(g),
		newPatchCmd(g),
		newVerifyCmd(g),
		newRolloutCmd(g),
		newChartCmd(g),
		newFreezeCmd(g),
		newUnfreezeCmd(g),
		newImportCmd(g),
	)
	addBuiltinExamples(cmd)
	markUsageErrors(cmd)
	return cmd
}

// addBuiltinExamples gives cobra's own help and completion commands
// examples, like every other command.
func addBuiltinExamples(root *cobra.Command) {
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		switch c.Name() {
		case "help":
			c.Example = "  strata help render"
		case "completion":
			c.Example = "  # Load completions into the current bash shell\n  source <(strata completion bash)"
			for _, sh := range c.Commands() {
				switch sh.Name() {
				case "fish":
					sh.Example = "  strata completion fish | source"
				case "powershell":
					sh.Example = "  strata completion powershell | Out-String | Invoke-Expression"
				default:
					sh.Example = fmt.Sprintf("  source <(strata completion %s)", sh.Name())
				}
			}
		}
	}
}

// commandLine is the command strata was run with, quoted, without
// --dry-run: the run a dry run stands for, every flag repeated.
func (g *globals) commandLine() string {
	args := slices.DeleteFunc(slices.Clone(g.args), func(a string) bool { return a == "--dry-run" || a == "--dry-run=true" })
	return "strata " + hint.Quote(args...)
}

// strata is the strata command args as a message prints it for the user
// to run next: with --root when the run had it.
func (g *globals) strata(args ...string) string {
	if g.root != "" {
		args = append([]string{"--root", g.root}, args...)
	}
	return "strata " + hint.Quote(args...)
}

// next is a command a library names for the user to run next (package
// hint), printed as strata prints its own.
func (g *globals) next(c hint.Command) string { return g.strata(c...) }

// gitCommand is "git" as a message prints it, with -C when the run had
// --root.
func (g *globals) gitCommand() string {
	if g.root != "" {
		return "git -C " + hint.Quote(g.root)
	}
	return "git"
}

// findRoot returns the repository directory: --root, or the nearest
// directory from the working directory upwards holding config/config.yaml.
func (g *globals) findRoot() (string, error) {
	if g.root != "" {
		if _, err := os.Stat(g.root + "/config/config.yaml"); err != nil {
			return "", &configError{fmt.Errorf("--root %s: no config/config.yaml there", g.root)}
		}
		return g.root, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; {
		if _, err := os.Stat(dir + "/config/config.yaml"); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", &configError{fmt.Errorf("no fleet repository here: no config/config.yaml in %s or any parent (use --root DIR, or strata init)", wd)}
		}
		dir = parent
	}
}
