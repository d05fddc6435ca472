package output

import (
	"errors"
	"os"

	"github.com/strata-fleet/strata/internal/atomicfile"
)

// fileOps are the operations by which a run changes the disk: staging,
// the journal, the switch, the clean-up and the render state (the last
// two in the local state, outside the repository). Every write
// of package output goes through them, so that the fault-injection tests
// can fail, stop or tear each one (failure_test.go). Names are slash paths
// relative to the root.
type fileOps interface {
	Mkdir(r *os.Root, name string) error
	// WriteFile writes a new file in a staging directory (no fsync: see
	// the package documentation).
	WriteFile(r *os.Root, name string, data []byte) error
	// WriteFileAt is WriteFile in an open directory, a name without a
	// slash (where atSupported); it returns the new file's stamp (without
	// its name) as the file is once written.
	WriteFileAt(dir *os.File, name string, data []byte) (Stamp, error)
	// WriteAtomic replaces name with package atomicfile.
	WriteAtomic(r *os.Root, name string, data []byte) error
	Link(r *os.Root, oldname, newname string) error
	// LinkAt is Link relative to open directories, names without a slash
	// (where atSupported).
	LinkAt(oldDir *os.File, oldname string, newDir *os.File, newname string) error
	Rename(r *os.Root, oldname, newname string) error
	// Exchange swaps two directories atomically where the system can,
	// else reports errors.ErrUnsupported having done nothing.
	Exchange(r *os.Root, a, b string) error
	Remove(r *os.Root, name string) error
	RemoveAll(r *os.Root, name string) error
	// SaveState writes a file of the local state, outside the repository
	// (the render state, the journal of a switch), with package
	// atomicfile.
	SaveState(path string, data []byte) error
	// RemoveLocal removes a file of the local state.
	RemoveLocal(path string) error
}

// diskOps performs fileOps on the disk. The directories and files it
// creates get atomicfile's modes whatever the umask: a chmod follows each
// creation, unless exact says that creating gives those modes already.
type diskOps struct {
	exact bool // modesExact of the repository
}

func (o diskOps) Mkdir(r *os.Root, name string) error {
	if err := r.Mkdir(name, atomicfile.DirMode); err != nil || o.exact {
		return err
	}
	return r.Chmod(name, atomicfile.DirMode)
}

func (o diskOps) WriteFile(r *os.Root, name string, data []byte) error {
	f, err := r.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, atomicfile.FileMode)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	var cerr error
	if !o.exact {
		cerr = f.Chmod(atomicfile.FileMode)
	}
	return errors.Join(werr, cerr, f.Close())
}

func (o diskOps) WriteFileAt(dir *os.File, name string, data []byte) (Stamp, error) {
	return writeFileAt(dir, name, data, !o.exact)
}

func (diskOps) WriteAtomic(r *os.Root, name string, data []byte) error {
	return atomicfile.WriteFile(r, name, data)
}

func (diskOps) Link(r *os.Root, oldname, newname string) error { return r.Link(oldname, newname) }

func (diskOps) LinkAt(oldDir *os.File, oldname string, newDir *os.File, newname string) error {
	return linkAt(oldDir, oldname, newDir, newname)
}

func (diskOps) Rename(r *os.Root, oldname, newname string) error { return r.Rename(oldname, newname) }

func (diskOps) Exchange(r *os.Root, a, b string) error { return exchange(r, a, b) }

func (diskOps) Remove(r *os.Root, name string) error { return r.Remove(name) }

func (diskOps) RemoveAll(r *os.Root, name string) error { return r.RemoveAll(name) }

func (diskOps) SaveState(path string, data []byte) error { return atomicfile.WriteAt(path, data) }

func (diskOps) RemoveLocal(path string) error { return os.Remove(path) }
