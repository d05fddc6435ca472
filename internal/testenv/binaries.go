package testenv

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// KubeVersion is the Kubernetes release whose kube-apiserver and
// kube-controller-manager the tests run. It must equal KUBE_VERSION in
// hack/build-kube.sh (a test checks that it does).
const KubeVersion = "v1.36.1"

// BuildScript is the script, relative to the repository root, that builds the
// binaries into [DefaultKubeBinDir].
const BuildScript = "hack/build-kube.sh"

// Environment variables that override where the binaries come from.
const (
	// EnvKubeBin names a directory holding kube-apiserver and
	// kube-controller-manager.
	EnvKubeBin = "STRATA_KUBE_BIN"
	// EnvCache names the cache root, as for the hack/build-*.sh scripts.
	EnvCache = "STRATA_CACHE"
	// EnvEtcd names the etcd binary; without it etcd is looked up on PATH.
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

// binaries are the executables a control plane needs.
type binaries struct {
	etcd              string
	apiServer         string
	controllerManager string
}

// ErrMissing marks a binary that is not installed, as opposed to a broken
// environment.
var ErrMissing = errors.New("not installed")

// findBinaries locates etcd, kube-apiserver and kube-controller-manager.
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
	b.controllerManager = filepath.Join(dir, "kube-controller-manager")
	for _, p := range []string{b.apiServer, b.controllerManager} {
		if err := Executable(p); err != nil {
			return b, fmt.Errorf("%s: %w (build it with %s, or set %s to a directory holding it)",
				p, err, BuildScript, EnvKubeBin)
		}
	}

	b.etcd = os.Getenv(EnvEtcd)
	if b.etcd == "" {
		p, err := exec.LookPath("etcd")
		if err != nil {
			return b, fmt.Errorf("etcd is not on PATH: %w (install the Debian package etcd-server, "+
				"which %s does when run as root, or set %s)", ErrMissing, BuildScript, EnvEtcd)
		}
		b.etcd = p
	} else if err := Executable(b.etcd); err != nil {
		return b, fmt.Errorf("%s=%s: %w", EnvEtcd, b.etcd, err)
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
