package output

import (
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// modesExact follows the umask: 022 and 0 clear none of 0755's and 0644's
// bits, 077 and 027 do. Not parallel: the umask is the process's.
func TestModesExactFollowsTheUmask(t *testing.T) {
	dir := t.TempDir()
	if _, err := unix.Getxattr(dir, "system.posix_acl_default", nil); err != unix.ENODATA && err != unix.ENOTSUP {
		t.Skipf("%s has a default ACL or cannot tell (%v)", dir, err)
	}
	for mask, want := range map[int]bool{0o022: true, 0o000: true, 0o077: false, 0o027: false, 0o002: true} {
		old := syscall.Umask(mask)
		got := modesExact(dir)
		syscall.Umask(old)
		if got != want {
			t.Errorf("umask %03o: modesExact = %v, want %v", mask, got, want)
		}
	}
}
