package e2e

import (
	"fmt"
	"github.com/strata-fleet/strata/internal/testing/testenv"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Versions of what the tests run; they must equal those of
// hack/build-argocd.sh (a test checks that they do).
const (
	ArgoCDVersion = "v3.5.7"
	HelmVersion   = "v4.2.4"
)

// BuildScript builds the binaries into [DefaultBinDir].
const BuildScript = "hack/build-argocd.sh"

// Environment variables that override where the binaries come from.
const (
	// EnvBin names a directory holding argocd, helm, git-verify-wrapper.sh
	// and gpg-wrapper.sh.
	EnvBin = "STRATA_ARGOCD_BIN"
	// EnvRedis names the redis-server binary; without it, it is looked up
	// on PATH.
	EnvRedis = "STRATA_REDIS"
)

// DefaultBinDir returns where hack/build-argocd.sh puts the binaries:
// ${STRATA_CACHE:-$HOME/.cache/strata}/argocd/<ArgoCDVersion>/bin.
func DefaultBinDir() (string, error) {
	cache, err := testenv.CacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, "argocd", ArgoCDVersion, "bin"), nil
}

// binaries are the executables of the Argo CD side.
type binaries struct {
	dir    string // argocd, helm and the wrappers, put first on PATH
	argocd string
	redis  string
	git    string
}

func findBinaries() (binaries, error) {
	var b binaries
	dir := os.Getenv(EnvBin)
	if dir == "" {
		var err error
		if dir, err = DefaultBinDir(); err != nil {
			return b, err
		}
	}
	b.dir = dir
	b.argocd = filepath.Join(dir, "argocd")
	for _, name := range []string{"argocd", "helm", "git-verify-wrapper.sh", "gpg-wrapper.sh"} {
		if err := testenv.Executable(filepath.Join(dir, name)); err != nil {
			return b, fmt.Errorf("%s: %w (build it with %s, or set %s to a directory holding it)",
				filepath.Join(dir, name), err, BuildScript, EnvBin)
		}
	}
	b.redis = os.Getenv(EnvRedis)
	if b.redis == "" {
		p, err := exec.LookPath("redis-server")
		if err != nil {
			return b, fmt.Errorf("redis-server is not on PATH: %w (install the Debian package redis-server, which %s does when run as root, or set %s)",
				testenv.ErrMissing, BuildScript, EnvRedis)
		}
		b.redis = p
	}
	p, err := exec.LookPath("git")
	if err != nil {
		return b, fmt.Errorf("git is not on PATH: %w (install the Debian package git)", testenv.ErrMissing)
	}
	b.git = p
	return b, nil
}

// SkipShort skips the test under -short with the reason, so that a plain
// `go test -short ./...` says why nothing ran here.
func SkipShort(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("skipping an end-to-end test against real Argo CD under -short: it runs a hub and spoke API servers, " +
			"redis and Argo CD (make e2e, or go test -run E2E ./internal/e2e after " + BuildScript + ")")
	}
}

// requireBinaries returns the binaries or fails the test naming the build
// script: a machine that runs the long tests must have them.
func requireBinaries(t testing.TB) binaries {
	t.Helper()
	SkipShort(t)
	b, err := findBinaries()
	if err != nil {
		t.Fatalf("the end-to-end tests need Argo CD %s, Helm %s, redis-server and git: %v", ArgoCDVersion, HelmVersion, err)
	}
	return b
}
