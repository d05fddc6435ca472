package hydrate

import "strings"

// RepoKey reduces a Git repository URL to host/path, so that the spellings
// of one repository compare equal: https://github.com/org/repo,
// https://github.com/org/repo.git, git@github.com:org/repo.git,
// ssh://git@github.com/org/repo. It is the one comparison of repository
// URLs in strata; docs/validate.md writes its rules down.
func RepoKey(u string) string {
	u = strings.TrimSpace(u)
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	} else if at := strings.Index(u, "@"); at >= 0 && strings.Contains(u[at:], ":") {
		u = strings.Replace(u[at+1:], ":", "/", 1) // scp-like git@host:org/repo
	}
	if at := strings.Index(u, "@"); at >= 0 && at < strings.Index(u+"/", "/") {
		u = u[at+1:] // user info
	}
	u = strings.TrimSuffix(strings.TrimSuffix(u, "/"), ".git")
	host, rest, _ := strings.Cut(u, "/")
	if h, port, ok := strings.Cut(host, ":"); ok && (port == "22" || port == "443") {
		host = h
	}
	return strings.ToLower(host) + "/" + rest
}
