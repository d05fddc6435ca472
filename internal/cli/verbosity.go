package cli

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	"github.com/strata-fleet/strata/internal/kube"
	"github.com/strata-fleet/strata/internal/values"
)

// quietOutput discards the text a command prints on success under -q,
// unless -o asks for data or the text is the report (reportAnnotation).
func (g *globals) quietOutput(c *cobra.Command) {
	if !g.quiet || c.Annotations[reportAnnotation] != "" || outputFlag(c) == "json" || outputFlag(c) == "yaml" {
		return
	}
	g.stdout = io.Discard
}

// verboseOutput lets client-go's warnings reach stderr under -v, until
// the returned function.
func (g *globals) verboseOutput() (restore func()) {
	if !g.verbose {
		return func() {}
	}
	klog.SetOutput(g.stderr)
	return func() { klog.SetOutput(io.Discard) }
}

// logger is the log of a command that runs long (serve, rollout): warnings,
// under -v all; errors cleaned as Main prints them, messages scrubbed.
func (g *globals) logger() *slog.Logger {
	level := slog.LevelWarn
	if g.verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(g.stderr, &slog.HandlerOptions{Level: level,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.MessageKey {
				return slog.String(a.Key, kube.Scrub(a.Value.String()))
			}
			if a.Value.Kind() != slog.KindAny {
				return a
			}
			if err, ok := a.Value.Any().(error); ok && err != nil {
				return slog.String(a.Key, g.clean(err))
			}
			return a
		}}))
}

// reportAnnotation marks a command whose standard output is the report the
// user asked for, which -q does not silence.
const reportAnnotation = "strata/report"

// outputFlag is the value of c's -o flag ("" when it has none).
func outputFlag(c *cobra.Command) string {
	if c == nil {
		return ""
	}
	if f := c.Flags().Lookup("output"); f != nil {
		return f.Value.String()
	}
	return ""
}

// jsonOutput reports whether the command that ran was asked for -o json:
// its errors are then JSON objects too.
func jsonOutput(c *cobra.Command) bool { return outputFlag(c) == "json" }

// jsonError is an error as -o json prints it on stderr, one a line.
type jsonError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Hint    string `json:"hint,omitempty"`
}

// printJSONError prints err as printError does, as JSON objects: one per
// joined error, each with the exit code of the whole, or, for rollout
// --all's patches (patchErrors), each with the patch's own.
func printJSONError(w io.Writer, err error, clean func(error) string) {
	code := exitCode(err)
	var all *patchErrors
	own := errors.As(err, &all)
	enc := json.NewEncoder(w)
	for _, e := range errorList(err) {
		c := code
		if own {
			c = exitCode(e)
		}
		je := jsonError{Code: c, Message: strings.TrimRight(clean(e), "\n")}
		if je.Message == "" {
			je.Message = quietExit(c)
		}
		var ve *values.Error
		if errors.As(e, &ve) {
			je.File, je.Line, je.Column, je.Hint = ve.Pos.File, ve.Pos.Line, ve.Pos.Col, ve.Hint
		}
		_ = enc.Encode(je)
	}
}

// quietExit is -o json's message for a gate (4) or in progress (6), where
// the command printed none.
func quietExit(code int) string {
	switch code {
	case exitPending:
		return "in progress: waiting for what is not over yet; the next run goes on (exit 6)"
	case exitGate:
		return "stopped at a gate: waiting for an approval or the end of a freeze (exit 4)"
	}
	return ""
}
