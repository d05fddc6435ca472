package testgit

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Name and Email are the author and committer of the tests' commits.
const (
	Name  = "strata test"
	Email = "test@strata.invalid"
)

// Env is the environment git runs in for tests (git.Exec's Env): the
// identity above, no system or global configuration.
var Env = []string{
	"GIT_AUTHOR_NAME=" + Name, "GIT_AUTHOR_EMAIL=" + Email,
	"GIT_COMMITTER_NAME=" + Name, "GIT_COMMITTER_EMAIL=" + Email,
	"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
}

// Run runs git args in dir ("" for the test's working directory) with
// Env and returns its standard output, trimmed; an error fails the test
// with all git said.
func Run(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	return RunEnv(tb, dir, nil, args...)
}

// RunEnv is Run with env after Env (a commit's date, say).
func RunEnv(tb testing.TB, dir string, env []string, args ...string) string {
	tb.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), Env...), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("git %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.Bytes())
	}
	return strings.TrimSpace(string(out))
}

// Setenv sets the author and committer (Name, Email) in the test's
// environment, for the code it runs that runs git itself as a user would,
// with the configuration it finds; the test may not be parallel
// (testing.T.Setenv).
func Setenv(tb testing.TB) {
	tb.Helper()
	for _, k := range []string{"GIT_AUTHOR", "GIT_COMMITTER"} {
		tb.Setenv(k+"_NAME", Name)
		tb.Setenv(k+"_EMAIL", Email)
	}
}

// Remote makes dir a repository on branch main whose origin is a new bare
// repository, returned, with main pushed there as its upstream; dir's
// files (none is fine) are its first commit. dir is made if missing.
func Remote(tb testing.TB, dir string) (bare string) {
	tb.Helper()
	bare = filepath.Join(tb.TempDir(), "remote.git")
	Run(tb, "", "init", "-q", "--bare", "-b", "main", bare)
	Run(tb, "", "init", "-q", "-b", "main", dir)
	Run(tb, dir, "add", "-A")
	Run(tb, dir, "commit", "-q", "--allow-empty", "-m", "first")
	Run(tb, dir, "remote", "add", "origin", bare)
	Run(tb, dir, "push", "-q", "-u", "origin", "main")
	return bare
}
