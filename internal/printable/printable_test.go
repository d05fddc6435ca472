package printable_test

import (
	"testing"

	"github.com/strata-fleet/strata/internal/printable"
)

func TestString(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain text as it is", "Promote patch-001 of workload/demo to staging", "Promote patch-001 of workload/demo to staging"},
		{"newlines and tabs stay", "failed:\n\tsmoke", "failed:\n\tsmoke"},
		{"a colour sequence is shown, not obeyed", "\x1b[31mred\x1b[0m", "^[[31mred^[[0m"},
		{"a title-setting sequence", "\x1b]0;owned\x07", "^[]0;owned^G"},
		{"carriage return and clear line", "ok\r\x1b[K", "ok^M^[[K"},
		{"DEL", "a\x7fb", "a^?b"},
		{"a C1 control sequence introducer", "a\u009b31mb", "a<U+009B>31mb"},
		{"non-ASCII text stays", "Zürich — 東京", "Zürich — 東京"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := printable.String(tt.in); got != tt.want {
				t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func FuzzString(f *testing.F) {
	f.Add("\x1b[31mred")
	f.Add("a\u009bb\r\n")
	f.Fuzz(func(t *testing.T, s string) {
		out := printable.String(s)
		for _, r := range out {
			if r != '\n' && r != '\t' && (r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0)) {
				t.Fatalf("String(%q) = %q keeps the control character %U", s, out, r)
			}
		}
		if printable.String(out) != out {
			t.Fatalf("String is not idempotent on %q", s)
		}
	})
}
