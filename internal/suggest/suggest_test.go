package suggest

import (
	"fmt"
	"slices"
	"testing"
)

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"production", "prodution", 1},
		{"kitten", "sitting", 3},
		{"abc", "", 3},
	}
	for _, tc := range tests {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestClosestSuggestsNearTyposOnly(t *testing.T) {
	names := []string{"integration", "stage", "production"}
	if got := Closest("prodution", names, 3); got != "production" {
		t.Errorf("Closest(prodution) = %q, want production", got)
	}
	if got := Closest("Stage", names, 3); got != "stage" {
		t.Errorf("Closest is case-insensitive: got %q, want stage", got)
	}
	if got := Closest("xyz", names, 1); got != "" {
		t.Errorf("Closest(xyz) = %q, want no suggestion", got)
	}
	if got := Closest("stage", names, 3); got != "" {
		t.Errorf("an exact match is not a suggestion, got %q", got)
	}
}

func TestNearestListsTheClosestFirst(t *testing.T) {
	names := []string{"integration", "production", "staging"}
	got, more := Nearest("stagin", names, 1)
	if want := []string{"staging"}; !slices.Equal(got, want) || !more {
		t.Errorf("Nearest(stagin, 1) = %q, %v; want %q, true", got, more, want)
	}
	got, more = Nearest("ab", []string{"xb", "ax"}, 5)
	if want := []string{"xb", "ax"}; !slices.Equal(got, want) || more {
		t.Errorf("Nearest(ab, 5) = %q, %v; want the tie in the given order %q, false", got, more, want)
	}
}

func TestNearestListNamesAllWhenFewElseTheNearest(t *testing.T) {
	for _, tc := range []struct {
		s          string
		candidates []string
		want       string
	}{
		{"x", nil, "(none)"},
		{"stagin", []string{"integration", "staging", "production"}, "one of: staging, integration, production"},
		{"stagin", []string{"integration", "staging", "production", "staging/eu", "prod/eu"}, "nearest: staging, staging/eu, integration"},
	} {
		if got := NearestList(tc.s, tc.candidates, 3); got != tc.want {
			t.Errorf("NearestList(%q, %q, 3) = %q, want %q", tc.s, tc.candidates, got, tc.want)
		}
	}
}

func TestNearestIgnoresCaseAndRepeats(t *testing.T) {
	got, more := Nearest("STAGING", []string{"production", "staging", "staging", "stage"}, 2)
	if want := []string{"staging", "stage"}; !slices.Equal(got, want) || !more {
		t.Errorf("Nearest(STAGING, 2) = %q, %v; want %q, true", got, more, want)
	}
}

func TestUnknownWordsEveryNameAlike(t *testing.T) {
	many := []string{"a/1", "a/2", "a/3", "b/1", "b/2", "b/3", "c/1"}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{Unknown("node", "stagin", []string{"integration", "staging"}), `unknown node "stagin" (one of: staging, integration)`},
		{Unknown("target", "b/4", many), `unknown target "b/4" (nearest: b/1, b/2, b/3, a/1, a/2)`},
		{Unknown("cluster", "mc-1", nil), `unknown cluster "mc-1" (there are none)`},
		{UnknownFlag("--until", "node", "stagin", []string{"staging"}), `--until: unknown node "stagin" (one of: staging)`},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}

// BenchmarkNearest is the suggestion of an unknown target in a fleet of
// 10,000 targets: what every such error costs.
func BenchmarkNearest(b *testing.B) {
	var names []string
	for env := range 10 {
		for sector := range 10 {
			for region := range 100 {
				names = append(names, fmt.Sprintf("environment-%d/sector-%d/region-%d", env, sector, region))
			}
		}
	}
	b.ResetTimer()
	for range b.N {
		Nearest("environment-3/sectr-7/region-42", names, Shown)
	}
}
