package hydrate

import "testing"

// Every spelling of one repository reduces to one key; other repositories
// (another host, owner, name or path case) do not (docs/validate.md).
func TestRepoKeyAliases(t *testing.T) {
	const want = "github.com/example/fleet"
	for _, u := range []string{
		"https://github.com/example/fleet",
		"https://github.com/example/fleet.git",
		"https://github.com/example/fleet/",
		"https://github.com/example/fleet.git/",
		"https://github.com:443/example/fleet",
		"http://github.com/example/fleet",
		"https://GitHub.COM/example/fleet",
		"https://user@github.com/example/fleet.git",
		"git@github.com:example/fleet.git",
		"git@GITHUB.com:example/fleet",
		"ssh://git@github.com/example/fleet",
		"ssh://git@github.com:22/example/fleet.git",
		"  https://github.com/example/fleet  ",
	} {
		if got := RepoKey(u); got != want {
			t.Errorf("RepoKey(%q) = %q, want %q", u, got, want)
		}
	}
	for _, u := range []string{
		"https://gitlab.com/example/fleet",
		"https://github.com/example/fleet2",
		"https://github.com/other/fleet",
		"https://github.com:8443/example/fleet",
		"https://github.com/example/Fleet",
		"https://github.com/example/fleet/sub",
	} {
		if got := RepoKey(u); got == want {
			t.Errorf("RepoKey(%q) = %q: another repository taken for %s", u, got, want)
		}
	}
}
