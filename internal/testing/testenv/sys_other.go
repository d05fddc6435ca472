//go:build !linux

package testenv

import (
	"os"
	"syscall"
	"testing"
)

// requireSupported skips the test: the control plane is only run on Linux,
// where hack/build-kube.sh and hack/build-etcd.sh are known to work.
func requireSupported(t testing.TB) {
	t.Helper()
	t.Skip("testenv runs a Kubernetes control plane on Linux only")
}

func sysProcAttr() *syscall.SysProcAttr { return nil }

func signalGroup(pid int, sig syscall.Signal) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Signal(sig)
}
