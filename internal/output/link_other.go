//go:build !linux

package output

import (
	"errors"
	"os"
)

// atSupported: files are linked and written by path through os.Root
// (fileOps.Link, WriteFile).
const atSupported = false

func linkAt(*os.File, string, *os.File, string) error { return errors.ErrUnsupported }

func writeFileAt(*os.File, string, []byte) error { return errors.ErrUnsupported }
