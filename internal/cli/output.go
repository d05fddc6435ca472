package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"
	"sigs.k8s.io/yaml"
)

// outputFormat is the -o flag of every command that reports: text, or the
// report as data (json, yaml) through write, the one output writer.
type outputFormat string

// addOutputFlag registers -o on flags; text says what the text form is,
// more the formats taken beside text, json and yaml (checkOutput).
func addOutputFlag(flags *pflag.FlagSet, o *outputFormat, text string, more ...string) {
	usage := "output format: text, json or yaml"
	if text != "" {
		usage += " (" + text + ")"
	}
	flags.StringVarP((*string)(o), "output", "o", "", usage)
	_ = flags.SetAnnotation("output", formatsAnnotation, more)
}

// formatsAnnotation marks an -o flag of addOutputFlag's with the formats
// it takes beside text, json and yaml.
const formatsAnnotation = "strata/formats"

// checkOutput refuses an -o flag of addOutputFlag's that names a format
// its command does not take.
func checkOutput(c *cobra.Command) error {
	f := c.Flags().Lookup("output")
	if f == nil {
		return nil
	}
	more, ok := f.Annotations[formatsAnnotation]
	if !ok || slices.Contains(more, f.Value.String()) {
		return nil
	}
	o := outputFormat(f.Value.String())
	return o.validate()
}

func (o *outputFormat) validate() error {
	switch *o {
	case "", "text", "json", "yaml":
		return nil
	}
	return usageErrorf("-o %s: unknown output format (text, json or yaml)", string(*o))
}

// data reports whether the report is printed as data (json or yaml) rather
// than as text.
func (o outputFormat) data() bool { return o == "json" || o == "yaml" }

// write prints v as the format says, JSON (indented) or YAML (the JSON
// field names, so that both hold the same keys), its empty lists as [].
func (o outputFormat) write(w io.Writer, v any) error {
	v = emptyLists(v)
	if o == "yaml" {
		data, err := yaml.Marshal(v)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeEvent prints one event of a stream: a JSON object on one line, or
// a YAML document, its empty lists as [].
func (o outputFormat) writeEvent(w io.Writer, v any) error {
	v = emptyLists(v)
	if o == "yaml" {
		data, err := yaml.Marshal(v)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "---\n%s", data)
		return err
	}
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
