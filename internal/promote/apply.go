package promote

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/strata-fleet/strata/internal/hint"
)

// FileOps are the file operations Apply performs; tests inject failures.
// WriteFile, Remove and ReadFile take slash paths relative to the
// repository; the journal lives outside it, in the checkout's local state.
type FileOps interface {
	WriteFile(name string, data []byte) error
	Remove(name string) error
	ReadFile(name string) ([]byte, error)
	WriteJournal(data []byte) error
	// ReadJournal returns an error matching fs.ErrNotExist when there is
	// no journal.
	ReadJournal() ([]byte, error)
	RemoveJournal() error
}

// Apply performs the plan's file operations through the journal: the
// journal is written first (stage "files"), then every write, then every
// removal, then the journal is moved to stage "render". Every operation is
// idempotent, so Resume can replay the journal after a failure or a crash
// at any point. The caller re-renders rendered/ and then calls Finish (at
// once when it does not re-render); until then every command that reads
// the fleet says the promotion is unfinished. A pending journal is
// refused: it is finished (Resume) first.
func Apply(ops FileOps, p *Plan) error {
	if err := checkOps(p.Ops); err != nil {
		return err
	}
	if j, err := Pending(ops); err != nil {
		return err
	} else if j != nil {
		return &PendingError{Journal: j, Asked: p}
	}
	if err := checkUntouched(ops, p.Ops); err != nil {
		return err
	}
	if err := writeJournal(ops, &Journal{Version: journalVersion, Stage: StageFiles, Plan: p}); err != nil {
		return fmt.Errorf("writing the promotion journal: %w", err)
	}
	return replay(ops, p)
}

func replay(ops FileOps, p *Plan) error {
	if err := checkOps(p.Ops); err != nil {
		return hint.Errorf("the promotion journal: %w; compare config/ with git, then delete the journal with %s", err, AbandonCommand)
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
			return hint.Errorf("%s %s: %w (the promotion is recorded in its journal; run %s to complete it)", op.Kind, op.Path, err, ResumeCommand)
		}
	}
	if err := writeJournal(ops, &Journal{Version: journalVersion, Stage: StageRender, Plan: p}); err != nil {
		return hint.Errorf("recording that the promotion's files are done: %w (run %s to complete it)", err, ResumeCommand)
	}
	return nil
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
			return hint.Errorf("%s changed since the promotion was planned; nothing was done (compare config/ with git; if a promotion was interrupted, drop it with %s and promote again)", op.Path, AbandonCommand)
		}
	}
	return nil
}
