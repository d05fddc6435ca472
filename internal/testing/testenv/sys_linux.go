package testenv

import (
	"syscall"
	"testing"
)

// requireSupported lets the test go on: the control plane runs on Linux.
func requireSupported(testing.TB) {}

// sysProcAttr puts a child in its own process group, so that stopping it stops
// everything it started, and has the kernel kill it if the test binary dies
// before its cleanups run (a test timeout, a panic, a SIGKILL).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// signalGroup sends sig to the process group led by pid.
func signalGroup(pid int, sig syscall.Signal) error {
	return syscall.Kill(-pid, sig)
}
