//go:build !unix && !windows

package lock

import (
	"fmt"
	"os"
	"runtime"
)

func tryLock(*os.File, bool) (bool, error) {
	return false, fmt.Errorf("file locks are not supported on %s", runtime.GOOS)
}

func unlock(*os.File) error { return nil }
