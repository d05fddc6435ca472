package web_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/strata-fleet/strata/internal/testing/benchfleet"
)

// largeFleet writes a bench fleet of 4 x 2 x 30 = 240 targets, more than a
// page of the matrix, and serves it.
func largeFleet(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	spec := benchfleet.Spec{Environments: 4, Sectors: 2, Regions: 30, Components: 3, Seed: 1}
	if err := benchfleet.Write(dir, spec); err != nil {
		t.Fatal(err)
	}
	return dir
}

var targetRow = regexp.MustCompile(`<tr class="target[^"]*" data-target="([^"]+)"`)

// The matrix of a large fleet comes in pages of 200 targets, in rollout
// order, each with links to the others; the summary and the patches are of
// the whole fleet; a page that does not exist is an error naming the pages.
func TestMatrixIsPaged(t *testing.T) {
	_, ts, _ := serveDir(t, largeFleet(t))
	var all []string
	for _, tc := range []struct {
		path, want string
		rows       int
	}{
		{"/", `Targets 1–200 of 240, page 1 of 2: <a href="/?page=2" rel="next">next</a>`, 200},
		{"/?page=2", `Targets 201–240 of 240, page 2 of 2: <a href="/" rel="first">first</a> <a href="/?page=1" rel="prev">previous</a>`, 40},
	} {
		code, body := get(t, ts, tc.path)
		if code != http.StatusOK {
			t.Fatalf("GET %s: %d\n%s", tc.path, code, body)
		}
		if !strings.Contains(body, tc.want) {
			t.Errorf("GET %s: no %q in the page", tc.path, tc.want)
		}
		if !strings.Contains(body, "240 targets, 3 components") {
			t.Errorf("GET %s: the summary does not count the whole fleet", tc.path)
		}
		rows := targetRow.FindAllStringSubmatch(body, -1)
		if len(rows) != tc.rows {
			t.Errorf("GET %s: %d rows, want %d", tc.path, len(rows), tc.rows)
		}
		for _, r := range rows {
			all = append(all, r[1])
		}
	}
	seen := map[string]bool{}
	for _, name := range all {
		if seen[name] {
			t.Errorf("target %s is on both pages", name)
		}
		seen[name] = true
	}
	for _, path := range []string{"/?page=3", "/?page=0", "/?page=x"} {
		code, body := get(t, ts, path)
		if code != http.StatusNotFound || !strings.Contains(body, "it has pages 1 to 2") {
			t.Errorf("GET %s: %d, want 404 naming the pages\n%s", path, code, body)
		}
	}
}
