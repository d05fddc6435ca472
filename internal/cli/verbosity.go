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

// quietOutput sends the text a command prints on success to io.Discard
// under -q, unless -o asks for data: errors (stderr) and the report asked
// for still reach the user. Commands whose text is the report itself
// (status, diff, explain, the findings of validate and verify) are
// annotated reportAnnotation and keep it.
func (g *globals) quietOutput(c *cobra.Command) {
	if !g.quiet || c.Annotations[reportAnnotation] != "" || outputFlag(c) == "json" || outputFlag(c) == "yaml" {
		return
	}
	g.stdout = io.Discard
}

// verboseOutput lets client-go's own warnings (klog, silenced by quietKlog)
// reach standard error under -v, for the command's run; the returned
// function silences them again.
func (g *globals) verboseOutput() (restore func()) {
	if !g.verbose {
		return func() {}
	}
	klog.SetOutput(g.stderr)
	return func() { klog.SetOutput(io.Discard) }
}

// logger is the log of a command that runs long (serve, rollout): its
// warnings, and under -v what it does. An error it logs reads as Main
// prints one (clean): scrubbed of credentials, the commands it names run
// against --root; a message, which may hold an error as text, is
// scrubbed.
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

// jsonError is an error as -o json prints it, one object a line on
// standard error: the exit code, the message, and where in the repository
// the error is when it names a place.
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

// quietExit says what an exit code means where the command printed no
// message of its own for it: at a gate (4) or in progress (6) text output
// prints nothing more, and -o json's object still says what the code is.
// Other codes keep their (empty) message.
func quietExit(code int) string {
	switch code {
	case exitPending:
		return "in progress: waiting for what is not over yet; the next run goes on (exit 6)"
	case exitGate:
		return "stopped at a gate: waiting for an approval or the end of a freeze (exit 4)"
	}
	return ""
}
