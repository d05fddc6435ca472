package textdiff

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUnified(t *testing.T) {
	tests := []struct {
		name          string
		before, after string
		want          string
	}{
		{name: "equal texts have no diff", before: "a\nb\n", after: "a\nb\n", want: ""},
		{name: "both empty have no diff", want: ""},
		{name: "a changed line is removed and added, with context",
			before: "a\nb\nc\n", after: "a\nB\nc\n",
			want: "--- x\n+++ y\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{name: "a new file is all additions", after: "a\n",
			want: "--- x\n+++ y\n@@ -0,0 +1 @@\n+a\n"},
		{name: "a last line without a line break is marked as git marks it",
			before: "a\n", after: "a",
			want: "--- x\n+++ y\n@@ -1 +1 @@\n-a\n+a\n\\ No newline at end of file\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Unified("x", "y", []byte(tt.before), []byte(tt.after), 3)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Unified (-want +got):\n%s", diff)
			}
		})
	}
}
