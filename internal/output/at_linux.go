package output

import (
	"io"
	"os"
	"strconv"
	"strings"

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
// the directory dir with data, as diskOps.WriteFile does, and returns its
// stamp (without a name) as written; chmod sets its mode after creating it.
func writeFileAt(dir *os.File, name string, data []byte, chmod bool) (Stamp, error) {
	fd, err := unix.Openat(int(dir.Fd()), name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(atomicfile.FileMode))
	if err != nil {
		return Stamp{}, &os.PathError{Op: "open", Path: name, Err: err}
	}
	err = writeAll(fd, data)
	if err == nil && chmod {
		err = unix.Fchmod(fd, uint32(atomicfile.FileMode))
	}
	var st unix.Stat_t
	if err == nil {
		err = unix.Fstat(fd, &st)
	}
	if cerr := unix.Close(fd); err == nil {
		err = cerr
	}
	if err != nil {
		return Stamp{}, &os.PathError{Op: "write", Path: name, Err: err}
	}
	return Stamp{Size: st.Size, MTime: st.Mtim.Nano(), Ino: st.Ino, CTime: st.Ctim.Nano()}, nil
}

// modesExact reports whether the directories and files created under the
// directory root get atomicfile's modes from creating them alone, so that
// no chmod needs to follow (one system call in four of writing a file):
// the process's umask clears none of their bits, and root has no default
// ACL, which would take the umask's place for what is created under it
// (and which the directories created under root inherit). Anything it
// cannot tell is false.
func modesExact(root string) bool {
	mask, ok := umask()
	if !ok || mask&uint32(atomicfile.DirMode|atomicfile.FileMode) != 0 {
		return false
	}
	_, err := unix.Getxattr(root, "system.posix_acl_default", nil)
	return err == unix.ENODATA || err == unix.ENOTSUP
}

// umask reads the process's umask from /proc/self/status (since Linux
// 4.7): setting it to read it back would race with the files that other
// goroutines create.
func umask() (uint32, bool) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "Umask:"); ok {
			m, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32)
			return uint32(m), err == nil
		}
	}
	return 0, false
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
