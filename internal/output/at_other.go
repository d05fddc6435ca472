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

func writeFileAt(*os.File, string, []byte, bool) (Stamp, error) {
	return Stamp{}, errors.ErrUnsupported
}

// modesExact is false: every creation is followed by a chmod.
func modesExact(string) bool { return false }

func readFileAt(*os.File, string, []byte) ([]byte, error) { return nil, errors.ErrUnsupported }
