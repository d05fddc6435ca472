package status_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"github.com/strata-fleet/strata/internal/testing/goldenfile"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/status"
	"github.com/strata-fleet/strata/internal/testing/testfleet"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func compute(t *testing.T) *status.Status {
	t.Helper()
	return computeFS(t, testfleet.FS())
}

// computeFS returns the status of the fleet in fsys.
func computeFS(t *testing.T, fsys fs.FS) *status.Status {
	t.Helper()
	f, err := fleet.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	s, err := status.Compute(f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got, *update)
}

func TestGoldenTable(t *testing.T) {
	s := compute(t)
	for _, tc := range []struct {
		name string
		opts status.TableOptions
	}{
		{"table.txt", status.TableOptions{}},
		{"table-width-72.txt", status.TableOptions{Width: 72}},
		{"table-color.txt", status.TableOptions{Color: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := status.WriteTable(&b, s, tc.opts); err != nil {
				t.Fatal(err)
			}
			if tc.opts.Width > 0 {
				for _, line := range strings.Split(b.String(), "\n") {
					if n := len([]rune(line)); n > tc.opts.Width {
						t.Errorf("line of %d runes is wider than %d: %q", n, tc.opts.Width, line)
					}
				}
			}
			golden(t, tc.name, b.Bytes())
		})
	}
}

func TestGoldenJSON(t *testing.T) {
	b, err := json.MarshalIndent(compute(t), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "status.json", append(b, '\n'))
}

func TestGoldenHTML(t *testing.T) {
	var b bytes.Buffer
	if err := status.WriteHTML(&b, compute(t)); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, external := range []string{"http://", "https://", "src=", "<link"} {
		if i := strings.Index(html, external); i >= 0 && !strings.Contains(html[max(0, i-80):i], "title=") {
			t.Errorf("the page refers to something outside it (%q): %s", external, html[max(0, i-60):min(len(html), i+60)])
		}
	}
	golden(t, "status.html", b.Bytes())
}

// A revision with control characters (an escape sequence in values.yaml) is
// printed escaped: the repository's text never drives the terminal.
func TestTableEscapesRepositoryText(t *testing.T) {
	s := &status.Status{Dimensions: []string{"environments"}, ClusterTypes: []status.ClusterType{{
		Name: "mc", Components: []string{"app"},
		Targets: []status.Target{{Path: []string{"dev"}, Cells: []status.Cell{{Component: "app",
			Versions: []status.Version{{Revision: "1.0\x1b[2J\x1b]0;title\a"}}}}}},
	}}}
	var b bytes.Buffer
	if err := status.WriteTable(&b, s, status.TableOptions{}); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(b.String(), "\x1b\a") || !strings.Contains(b.String(), `"1.0\x1b[2J\x1b]0;title\a"`) {
		t.Errorf("table holds the raw escape sequence or not its escaped form:\n%s", b.String())
	}
}
