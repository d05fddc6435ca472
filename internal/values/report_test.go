package values

import (
	"errors"
	"strings"
	"testing"
)

// Text from the repository reaches the terminal only escaped: file names in
// positions and keys in paths are quoted when a character does not print.
func TestUntrustedTextIsEscaped(t *testing.T) {
	tests := []struct{ name, got, want string }{
		{"plain file", Pos{File: "config/a.yaml", Line: 3, Col: 5}.String(), "config/a.yaml:3:5"},
		{"file with an escape sequence", Pos{File: "config/\x1b[2Ja.yaml", Line: 3, Col: 5}.String(), `"config/\x1b[2Ja.yaml":3:5`},
		{"directory with a newline", Pos{File: "config/a\nb/"}.String(), `"config/a\nb/"`},
		{"plain key", PathString([]string{"applications", "app"}), "applications.app"},
		{"key with a dot", PathString([]string{"a.b"}), `"a.b"`},
		{"key with a bell", PathString([]string{"applications", "a\ab"}), `applications."a\ab"`},
		{"key with a right-to-left override", PathString([]string{"a\u202eb"}), `"a\u202eb"`},
		{"printable non-ASCII", Printable("café"), "café"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.name, tt.got, tt.want)
		}
	}
}

// Errors the YAML parser places badly are reported where the problem is: a
// byte that is not UTF-8 (the parser says no line) and a tab in
// indentation (the parser names the line of the token before it).
func TestSyntaxErrorPositions(t *testing.T) {
	tests := []struct {
		name, src string
		line, col int
		msg, hint string
	}{
		{"Latin-1 in a value", "a: 1\nb: 2\nc: 'ok'\nd: caf\xe9 x\n", 4, 7, "byte 0xe9 is not UTF-8 text", "save the file as UTF-8"},
		{"a bad byte in a comment", "# c\xff\na: 1\n", 1, 4, "byte 0xff is not UTF-8 text", "save the file as UTF-8"},
		{"after a multi-byte character", "a: é\xff\n", 1, 5, "byte 0xff is not UTF-8 text", "save the file as UTF-8"},
		{"a tab after a nested mapping", "a: 1\nb:\n  c: 1\n\td: 2\n", 4, 1, "tab character", "indent with spaces"},
		{"a tab on a line after blank lines", "a:\n  b: 1\n  c: 2\n\n\n\t\n  d: 3\n", 6, 1, "tab character", "indent with spaces"},
		{"a tab before a list item", "a: 1\nc:\n\t- 1\n", 3, 1, "cannot start any token", "indent with spaces"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode("f.yaml", []byte(tt.src))
			e, ok := errors.AsType[*Error](err)
			if !ok {
				t.Fatalf("Decode: %v, want an *Error", err)
			}
			if e.Pos.Line != tt.line || e.Pos.Col != tt.col || !strings.Contains(e.Msg, tt.msg) || !strings.Contains(e.Hint, tt.hint) {
				t.Errorf("got %q at %d:%d (hint %q), want %q at %d:%d (hint %q)", e.Msg, e.Pos.Line, e.Pos.Col, e.Hint, tt.msg, tt.line, tt.col, tt.hint)
			}
		})
	}
}
