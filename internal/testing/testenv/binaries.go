package testenv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// KubeVersion is the Kubernetes release whose kube-apiserver and
// controllers (kube-controllers) the tests run. It must equal KUBE_VERSION in
// hack/build-kube.sh (a test checks that it does).
const KubeVersion = "v1.36.1"

// BuildScript is the script, relative to the repository root, that builds the
// binaries into [DefaultKubeBinDir].
const BuildScript = "hack/build-kube.sh"

// EtcdVersion is the etcd release the API servers store their objects in. It
// must equal ETCD_VERSION in hack/build-etcd.sh (a test checks that it does).
// On it kube-apiserver serves consistent lists from its watch cache, which
// needs etcd 3.5.13 or later (Debian's 3.4.23 does not allow it).
const EtcdVersion = "v3.6.16"

// EtcdBuildScript is the script, relative to the repository root, that builds
// etcd into [DefaultEtcd].
const EtcdBuildScript = "hack/build-etcd.sh"

// Environment variables that override where the binaries come from.
const (
	// EnvKubeBin names a directory holding kube-apiserver and
	// kube-controllers.
	EnvKubeBin = "STRATA_KUBE_BIN"
	// EnvCache names the cache root, as for the hack/build-*.sh scripts.
	EnvCache = "STRATA_CACHE"
	// EnvEtcd names the etcd binary; without it [DefaultEtcd] is used
	// (never the etcd on PATH, an older one that would slow every list).
	EnvEtcd = "STRATA_ETCD"
)

// CacheDir returns the root of the cache the hack/build-*.sh scripts build
// into: ${STRATA_CACHE:-$HOME/.cache/strata}.
func CacheDir() (string, error) {
	if cache := os.Getenv(EnvCache); cache != "" {
		return cache, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("locating the strata cache: %w", err)
	}
	return filepath.Join(home, ".cache", "strata"), nil
}

// DefaultKubeBinDir returns where hack/build-kube.sh puts the binaries:
// <CacheDir>/kube/<KubeVersion>/bin.
func DefaultKubeBinDir() (string, error) {
	cache, err := CacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, "kube", KubeVersion, "bin"), nil
}

// DefaultEtcd returns where hack/build-etcd.sh puts etcd:
// <CacheDir>/etcd/<EtcdVersion>/etcd.
func DefaultEtcd() (string, error) {
	cache, err := CacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, "etcd", EtcdVersion, "etcd"), nil
}

// binaries are the executables a control plane needs.
type binaries struct {
	etcd        string
	apiServer   string
	controllers string
}

// ErrMissing marks a binary that is not installed, as opposed to a broken
// environment.
var ErrMissing = errors.New("not installed")

// findBinaries locates etcd, kube-apiserver and kube-controllers.
func findBinaries() (binaries, error) {
	var b binaries
	dir := os.Getenv(EnvKubeBin)
	if dir == "" {
		var err error
		if dir, err = DefaultKubeBinDir(); err != nil {
			return b, err
		}
	}
	b.apiServer = filepath.Join(dir, "kube-apiserver")
	b.controllers = filepath.Join(dir, "kube-controllers")
	for _, p := range []string{b.apiServer, b.controllers} {
		if err := Executable(p); err != nil {
			return b, fmt.Errorf("%s: %w (build it with %s, or set %s to a directory holding it)",
				p, err, BuildScript, EnvKubeBin)
		}
	}

	if b.etcd = os.Getenv(EnvEtcd); b.etcd != "" {
		if err := Executable(b.etcd); err != nil {
			return b, fmt.Errorf("%s=%s: %w", EnvEtcd, b.etcd, err)
		}
		return b, nil
	}
	var err error
	if b.etcd, err = DefaultEtcd(); err != nil {
		return b, err
	}
	if err := Executable(b.etcd); err != nil {
		return b, fmt.Errorf("%s: %w (build it with %s, or set %s to an etcd binary)",
			b.etcd, err, EtcdBuildScript, EnvEtcd)
	}
	return b, nil
}

// Executable reports whether path is an executable regular file; a missing
// file is ErrMissing.
func Executable(path string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return ErrMissing
	case err != nil:
		return err
	case !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0:
		return errors.New("not an executable file")
	}
	return nil
}

// requireBinaries returns the control plane's binaries, or ends the test: with
// t.Skip under -short when they are not installed, else with t.Fatal naming
// the build script. A long test is never skipped silently: a machine that
// should run it but lacks the binaries fails.
func requireBinaries(t testing.TB) binaries {
	t.Helper()
	b, err := findBinaries()
	if err == nil {
		return b
	}
	if testing.Short() && errors.Is(err, ErrMissing) {
		t.Skipf("skipping a test that needs a real API server under -short: %v", err)
	}
	t.Fatalf("starting a Kubernetes API server: %v", err)
	return b
}
