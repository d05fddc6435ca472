package fleet

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-fleet/strata/internal/values"
)

func TestCheckName(t *testing.T) {
	tests := []struct {
		name string
		want string // "" when the name is accepted, else a part of the error
	}{
		{"us-east1", ""},
		{"cert-manager", ""},
		{"Prod_2.v1", ""},
		{"1st", ""},
		{"console", ""},
		{"com10", ""},
		{"", "empty"},
		{".", "not allowed"},
		{"..", "not allowed"},
		{"a/b", "must not contain '/'"},
		{`a\b`, "must not contain '/'"},
		{"a\x00b", "must not contain '/'"},
		{" a", "spaces"},
		{".git", "must start with a letter or a digit"},
		{".GIT", "must start with a letter or a digit"},
		{".hidden", "must start with a letter or a digit"},
		{"-rf", "must start with a letter or a digit"},
		{"a\nb", `must not contain '\n'`},
		{"a\rb", `must not contain '\r'`},
		{"red\x1b[31m", `must not contain '\x1b'`},
		{"a\u202eb", `must not contain '\u202e'`},
		{"a b", `must not contain ' '`},
		{"c:d", `must not contain ':'`},
		{"a*b", `must not contain '*'`},
		{"git~1", `must not contain '~'`},
		{"café", `must not contain 'é'`},
		{"a.", "must not end with '.'"},
		{"CON", "device name on Windows"},
		{"nul", "device name on Windows"},
		{"aux.yaml", "device name on Windows"},
		{"Com1", "device name on Windows"},
		{"lpt9.x", "device name on Windows"},
		{strings.Repeat("a", maxNameLen), ""},
		{strings.Repeat("a", maxNameLen+1), "at most"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkName(tt.name)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("checkName(%q) = %v, want nil", tt.name, err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("checkName(%q) = %v, want an error containing %q", tt.name, err, tt.want)
			case err != nil && values.Printable(err.Error()) != err.Error():
				t.Fatalf("checkName(%q) error %q has characters that do not print", tt.name, err)
			}
		})
	}
}

// FuzzName checks that every name checkName accepts is a safe path segment
// and round-trips: through a directory of the real file system (the name
// read back is the name written, and nothing else appears) and through
// the YAML encoder and decoder, as a key and as a string.
func FuzzName(f *testing.F) {
	for _, s := range []string{"us-east1", ".git", "..", "a/b", "CON", "a\nb", "true", "1e3", "null", "0x1F", "~", "a.", "Prod"} {
		f.Add(s)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, s string) {
		if err := checkName(s); err != nil {
			if values.Printable(err.Error()) != err.Error() {
				t.Fatalf("error %q has characters that do not print", err)
			}
			return
		}
		if !fs.ValidPath(s) || path.Clean(s) != s || path.Base(s) != s || !filepath.IsLocal(s) || strings.HasPrefix(s, ".") {
			t.Fatalf("accepted %q, which is not a plain path segment", s)
		}
		roundTripFile(t, dir, s)
		roundTripYAML(t, s)
	})
}

func roundTripFile(t *testing.T, dir, s string) {
	sub, err := os.MkdirTemp(dir, "n")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(sub)
	if err := os.WriteFile(filepath.Join(sub, s), []byte("x"), 0o644); err != nil {
		t.Fatalf("accepted %q, which the file system refuses: %v", s, err)
	}
	entries, err := os.ReadDir(sub)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != s {
		t.Fatalf("accepted %q, which reads back from a directory as %v", s, entries)
	}
}

func roundTripYAML(t *testing.T, s string) {
	m := values.NewMap(values.Pos{})
	m.Set(s, values.NewString(s, values.Pos{}))
	v, err := values.Decode("x.yaml", values.Encode(m))
	if err != nil {
		t.Fatalf("accepted %q, whose YAML does not decode: %v", s, err)
	}
	got := v.Get(s)
	if len(v.Keys) != 1 || got == nil || got.Kind != values.String || got.Text != s {
		t.Fatalf("accepted %q, which does not round-trip through YAML: %s", s, values.Encode(v))
	}
}

func TestDidYouMeanNamesFewOrTheNearestOfMany(t *testing.T) {
	var many []string
	for _, env := range []string{"integration", "staging", "production"} {
		for _, region := range []string{"us-east1", "us-west1", "eu-west1", "eu-north1"} {
			many = append(many, env+"/"+region)
		}
	}
	for _, tc := range []struct {
		got   string
		names []string
		want  string
	}{
		{"stagin", []string{"integration", "staging"}, `did you mean "staging"? (one of: integration, staging)`},
		{"xyz", []string{"integration", "staging"}, "one of: integration, staging"},
		{"production/us-east", many, `did you mean "production/us-east1"? (nearest: production/us-east1, production/us-west1, production/eu-west1, production/eu-north1, integration/us-east1)`},
	} {
		if got := didYouMean(tc.got, tc.names); got != tc.want {
			t.Errorf("didYouMean(%q) =\n  %s\nwant\n  %s", tc.got, got, tc.want)
		}
	}
}
