package output

import (
	"os"

	"golang.org/x/sys/unix"
)

// linkAtSupported: links are made relative to open directories (linkat).
const linkAtSupported = true

// linkAt hard-links oldname in the directory oldDir as newname in newDir,
// both plain names; a link named oldname is linked, not followed.
func linkAt(oldDir *os.File, oldname string, newDir *os.File, newname string) error {
	if err := unix.Linkat(int(oldDir.Fd()), oldname, int(newDir.Fd()), newname, 0); err != nil {
		return &os.LinkError{Op: "link", Old: oldname, New: newname, Err: err}
	}
	return nil
}
