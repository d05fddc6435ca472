package cli

import (
	"bytes"
	"errors"
	"testing"
)

// An error that quotes the repository's text raw (a YAML parser's message,
// a line of a file) reaches the terminal with its control characters
// escaped; the message's own line breaks and tabs stay.
func TestPrintErrorEscapesControls(t *testing.T) {
	var b bytes.Buffer
	printError(&b, errors.New("bad line \"a\x1b[2J\rb\u202ec\":\n\tconfig/a.yaml:1:1"), false)
	want := "strata: bad line \"a\\x1b[2J\\rb\\u202ec\":\n\tconfig/a.yaml:1:1\n"
	if got := b.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
