//go:build !linux

package output

import (
	"errors"
	"os"
)

// exchange is not available here: the switch renames the old tree away,
// then the new one in.
func exchange(*os.Root, string, string) error { return errors.ErrUnsupported }
