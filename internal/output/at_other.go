//go:build !linux

package output

import (
	"errors"
	"os"
)

// atSupported: files are linked, written and read by path through os.Root
// (fileOps.Link, WriteFile, os.Root.ReadFile).
const atSupported = false

func linkAt(*os.File, string, *os.File, string) error { return errors.ErrUnsupported }

func writeFileAt(*os.File, string, []byte) error { return errors.ErrUnsupported }

func readFileAt(*os.File, string, []byte) ([]byte, error) { return nil, errors.ErrUnsupported }
