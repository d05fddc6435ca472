package validate

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParsePath(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"spec", []string{"spec"}},
		{"spec.source.repoURL", []string{"spec", "source", "repoURL"}},
		{"spec.sources[1].helm.parameters[0].name", []string{"spec", "sources", "1", "helm", "parameters", "0", "name"}},
		{"metadata.annotations[argocd.argoproj.io/sync-wave]", []string{"metadata", "annotations", "argocd.argoproj.io/sync-wave"}},
		{"", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, parsePath(tt.in)); diff != "" {
			t.Errorf("parsePath(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestRepoKeyEquatesSpellingsOfOneRepository(t *testing.T) {
	same := []string{
		"https://github.com/Example/fleet",
		"https://github.com/Example/fleet.git",
		"https://github.com/Example/fleet/",
		"http://github.com/Example/fleet",
		"git@github.com:Example/fleet.git",
		"ssh://git@github.com/Example/fleet.git",
		"ssh://git@github.com:22/Example/fleet",
		"https://user@GitHub.com/Example/fleet",
	}
	want := "github.com/Example/fleet"
	for _, u := range same {
		if got := repoKey(u); got != want {
			t.Errorf("repoKey(%q) = %q, want %q", u, got, want)
		}
	}
	for _, u := range []string{"https://github.com/Example/fleet-apps", "https://gitlab.com/Example/fleet", "https://stefanprodan.github.io/podinfo"} {
		if repoKey(u) == want {
			t.Errorf("repoKey(%q) = %q: another repository", u, want)
		}
	}
}
