package output

import (
	"io"
	"os"

	"golang.org/x/sys/unix"

	"github.com/strata-fleet/strata/internal/atomicfile"
)

// atSupported: files are linked, written and read relative to open
// directories (linkat, openat).
const atSupported = true

// linkAt hard-links oldname in the directory oldDir as newname in newDir,
// both plain names; a link named oldname is linked, not followed.
func linkAt(oldDir *os.File, oldname string, newDir *os.File, newname string) error {
	if err := unix.Linkat(int(oldDir.Fd()), oldname, int(newDir.Fd()), newname, 0); err != nil {
		return &os.LinkError{Op: "link", Old: oldname, New: newname, Err: err}
	}
	return nil
}

// writeFileAt creates the file name (a plain name, which must not exist) in
// the directory dir with data, as diskOps.WriteFile does.
func writeFileAt(dir *os.File, name string, data []byte) error {
	fd, err := unix.Openat(int(dir.Fd()), name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(atomicfile.FileMode))
	if err != nil {
		return &os.PathError{Op: "open", Path: name, Err: err}
	}
	err = writeAll(fd, data)
	if err == nil {
		err = unix.Fchmod(fd, uint32(atomicfile.FileMode))
	}
	if cerr := unix.Close(fd); err == nil {
		err = cerr
	}
	if err != nil {
		return &os.PathError{Op: "write", Path: name, Err: err}
	}
	return nil
}

func writeAll(fd int, data []byte) error {
	for len(data) > 0 {
		n, err := unix.Write(fd, data)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return err
		case n == 0:
			return io.ErrShortWrite
		}
		data = data[n:]
	}
	return nil
}

// readFileAt reads the file name (a plain name, not a link) in the
// directory dir into buf, which must be one byte longer than the longest
// content the caller wants, and returns what it read: all the file, when it
// is shorter than buf.
func readFileAt(dir *os.File, name string, buf []byte) ([]byte, error) {
	fd, err := unix.Openat(int(dir.Fd()), name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	defer unix.Close(fd)
	n := 0
	for n < len(buf) {
		m, err := unix.Read(fd, buf[n:])
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return nil, &os.PathError{Op: "read", Path: name, Err: err}
		case m == 0:
			return buf[:n], nil
		}
		n += m
	}
	return buf[:n], nil
}
