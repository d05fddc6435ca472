package output

import (
	"errors"
	"os"
	"path"

	"golang.org/x/sys/unix"
)

// exchange swaps the directories a and b in one step (renameat2 with
// RENAME_EXCHANGE): each name always holds a complete tree. Both parents
// are opened through r and the names passed to the system are single
// components, so the swap stays inside r.
func exchange(r *os.Root, a, b string) error {
	da, err := r.Open(path.Dir(a))
	if err != nil {
		return err
	}
	defer da.Close()
	db, err := r.Open(path.Dir(b))
	if err != nil {
		return err
	}
	defer db.Close()
	err = unix.Renameat2(int(da.Fd()), path.Base(a), int(db.Fd()), path.Base(b), unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		return errors.ErrUnsupported
	}
	if err != nil {
		return &os.LinkError{Op: "exchange", Old: a, New: b, Err: err}
	}
	return nil
}
