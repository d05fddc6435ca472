package values

import "testing"

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
