//go:build unix

package git

import (
	"os/exec"
	"syscall"
	"time"
)

// killGroup makes cmd the leader of a process group of its own and, when
// its context ends, kills the group: git and every helper it started.
// Wait returns at most waitDelay later even if a process outside the group
// still holds git's output open.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = waitDelay
}

const waitDelay = 5 * time.Second
