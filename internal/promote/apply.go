package promote

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/strata-fleet/strata/internal/atomicfile"
)

// JournalPath is where an unfinished promotion is recorded, relative to the
// repository. It exists only while a promotion is being applied.
const JournalPath = ".strata/promote-journal.json"

// FileOps are the file operations Apply performs; tests inject failures.
type FileOps interface {
	WriteFile(name string, data []byte) error
	Remove(name string) error
	ReadFile(name string) ([]byte, error)
}

// DirOps performs FileOps on the directory Root, through an os.Root so that
// no name resolves outside it: writes go through package atomicfile
// (never through a symbolic link; a temporary file next to the
// destination, synced, then renamed; its name is fixed, so a write repeated
// after a crash replaces what the crash left), and removals also remove the
// level directories they leave empty, up to the component directory.
type DirOps struct{ Root string }

func (d DirOps) do(fn func(r *os.Root) error) error {
	r, err := os.OpenRoot(d.Root)
	if err != nil {
		return err
	}
	defer r.Close()
	return fn(r)
}

// WriteFile writes data to name atomically, creating directories.
func (d DirOps) WriteFile(name string, data []byte) error {
	return d.do(func(r *os.Root) error { return atomicfile.WriteFile(r, name, data) })
}

// Remove removes name (a missing file is not an error) and the level
// directories it leaves empty.
func (d DirOps) Remove(name string) error {
	return d.do(func(r *os.Root) error {
		if err := r.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		// config/<type>/<component>/<level>...: stop at the component.
		for dir := path.Dir(name); strings.Count(dir, "/") > 2; dir = path.Dir(dir) {
			if r.Remove(dir) != nil {
				break
			}
		}
		return nil
	})
}

// ReadFile reads name.
func (d DirOps) ReadFile(name string) ([]byte, error) {
	var data []byte
	err := d.do(func(r *os.Root) error {
		var err error
		data, err = r.ReadFile(name)
		return err
	})
	return data, err
}

// Apply performs the plan's operations through the journal: the journal is
// written first, then every write, then every removal, then the journal is
// removed. Every operation is idempotent, so Resume can replay the journal
// after a failure or a crash at any point.
func Apply(ops FileOps, p *Plan) error {
	if err := checkOps(p.Ops); err != nil {
		return err
	}
	if err := checkUntouched(ops, p.Ops); err != nil {
		return err
	}
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	if err := ops.WriteFile(JournalPath, data); err != nil {
		return fmt.Errorf("writing the promotion journal: %w", err)
	}
	return replay(ops, p)
}

func replay(ops FileOps, p *Plan) error {
	if err := checkOps(p.Ops); err != nil {
		return fmt.Errorf("%s: %w; compare config/ with git and delete it", JournalPath, err)
	}
	if err := checkUntouched(ops, p.Ops); err != nil {
		return err
	}
	for _, op := range p.Ops {
		var err error
		switch op.Kind {
		case "write":
			err = ops.WriteFile(op.Path, op.Data)
		case "remove":
			err = ops.Remove(op.Path)
		}
		if err != nil {
			return fmt.Errorf("%s %s: %w (the promotion is recorded in %s; run strata promote --resume to complete it)", op.Kind, op.Path, err, JournalPath)
		}
	}
	if err := ops.Remove(JournalPath); err != nil {
		return fmt.Errorf("removing the promotion journal: %w", err)
	}
	return nil
}

// Pending returns the promotion recorded in the journal, or nil when there
// is none.
func Pending(ops FileOps) (*Plan, error) {
	data, err := ops.ReadFile(JournalPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var p Plan
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("%s is damaged (%v); compare config/ with git and delete it", JournalPath, err)
	}
	return &p, nil
}

// Resume completes the promotion recorded in the journal, if any, and
// returns it.
func Resume(ops FileOps) (*Plan, error) {
	p, err := Pending(ops)
	if err != nil || p == nil {
		return nil, err
	}
	return p, replay(ops, p)
}

// checkOps refuses, before anything is done, operations that a plan never
// holds: unknown kinds, and paths outside config/ or not in clean slash
// form (a journal is a file anyone can edit).
func checkOps(ops []Op) error {
	for _, op := range ops {
		if op.Kind != "write" && op.Kind != "remove" {
			return fmt.Errorf("unknown operation %q on %s", op.Kind, op.Path)
		}
		if !fs.ValidPath(op.Path) || !strings.HasPrefix(op.Path, "config/") || !strings.HasSuffix(op.Path, ".yaml") {
			return fmt.Errorf("operation %s on %q: not a YAML file under config/", op.Kind, op.Path)
		}
	}
	return nil
}

// digest is the hex SHA-256 of data.
func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// checkUntouched refuses, before anything is done, to perform operations
// on files that changed since the plan was made: each file must be as the
// plan found it (Was; absent when Was is "") or as the operation leaves it.
// A promotion interrupted, then edited by hand, is not completed over the
// edits.
func checkUntouched(ops FileOps, list []Op) error {
	for _, op := range list {
		data, err := ops.ReadFile(op.Path)
		exists := err == nil
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		ok := false
		switch op.Kind {
		case "write":
			ok = (!exists && op.Was == "") || (exists && (digest(data) == op.Was || bytes.Equal(data, op.Data)))
		case "remove":
			ok = !exists || digest(data) == op.Was
		}
		if !ok {
			return fmt.Errorf("%s changed since the promotion was planned; nothing was done (compare config/ with git; if a promotion was interrupted, delete %s and promote again)", op.Path, JournalPath)
		}
	}
	return nil
}
