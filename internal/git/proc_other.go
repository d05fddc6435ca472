//go:build !unix

package git

import (
	"os/exec"
	"time"
)

// killGroup: without process groups, git alone is killed when its context
// ends; Wait returns at most 5 s later.
func killGroup(cmd *exec.Cmd) { cmd.WaitDelay = 5 * time.Second }
