//go:build !linux

package output

import (
	"errors"
	"os"
)

// linkAtSupported: links are made by path through os.Root (fileOps.Link).
const linkAtSupported = false

func linkAt(*os.File, string, *os.File, string) error { return errors.ErrUnsupported }
