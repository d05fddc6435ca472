package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"golang.org/x/term"
)

// outputFormat is the -o flag of reporting commands.
type outputFormat string

func (o *outputFormat) validate() error {
	switch *o {
	case "", "text", "json":
		return nil
	}
	return fmt.Errorf("-o %s: unknown output format (text or json)", string(*o))
}

func (o outputFormat) json() bool { return o == "json" }

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
