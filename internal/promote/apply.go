package promote

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
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

// DirOps performs FileOps on the directory Root: writes are atomic
// (temporary file, then rename) and removals also remove the directories
// they leave empty, up to the component directory.
type DirOps struct{ Root string }

func (d DirOps) abs(name string) string { return filepath.Join(d.Root, filepath.FromSlash(name)) }

// WriteFile writes data to name atomically, creating directories.
func (d DirOps) WriteFile(name string, data []byte) error {
	dst := d.abs(name)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".strata-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	if err := errors.Join(werr, tmp.Close(), os.Chmod(tmp.Name(), 0o644)); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// Remove removes name (a missing file is not an error) and the level
// directories it leaves empty.
func (d DirOps) Remove(name string) error {
	if err := os.Remove(d.abs(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	// config/<type>/<component>/<level>...: stop at the component.
	for dir := path.Dir(name); strings.Count(dir, "/") > 2; dir = path.Dir(dir) {
		if os.Remove(d.abs(dir)) != nil {
			break
		}
	}
	return nil
}

// ReadFile reads name.
func (d DirOps) ReadFile(name string) ([]byte, error) { return os.ReadFile(d.abs(name)) }

// Apply performs the plan's operations through the journal: the journal is
// written first, then every write, then every removal, then the journal is
// removed. Every operation is idempotent, so Resume can replay the journal
// after a failure or a crash at any point.
func Apply(ops FileOps, p *Plan) error {
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
	for _, op := range p.Ops {
		var err error
		switch op.Kind {
		case "write":
			err = ops.WriteFile(op.Path, op.Data)
		case "remove":
			err = ops.Remove(op.Path)
		default:
			err = fmt.Errorf("unknown operation %q", op.Kind)
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
