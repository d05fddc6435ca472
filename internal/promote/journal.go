package promote

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/strata-fleet/strata/internal/hint"
)

// JournalName is the journal's file in the checkout's local state
// (package localstate): outside the repository, so that no commit and no
// pull request can bring one, and keyed by the checkout's path, so that it
// belongs to this checkout only.
const JournalName = "promote-journal.json"

// CommittedJournal is where strata once kept the journal, inside the
// repository. A file there is never read: a pull request that adds it would
// otherwise have its writes replayed on the next promote. Commands warn
// about it.
const CommittedJournal = ".strata/promote-journal.json"

// journalVersion changes when Journal's encoding does.
const journalVersion = 1

// Stage is how far an unfinished promotion got.
type Stage string

// The stages of a promotion after its plan.
const (
	// StageFiles: the file operations under config/ are under way.
	StageFiles Stage = "files"
	// StageRender: config/ is promoted; rendered/ is not yet re-rendered.
	StageRender Stage = "render"
)

// Journal records a promotion from its first file operation until
// rendered/ reflects it.
type Journal struct {
	Version int   `json:"version"`
	Stage   Stage `json:"stage"`
	Plan    *Plan `json:"plan"`
}

// Describe names the promotion and how far it got, for messages.
func (j *Journal) Describe() string {
	what := fmt.Sprintf("%s of %s/%s", j.Plan.Patch, j.Plan.ClusterType, j.Plan.Component)
	if j.Plan.Target != "" {
		what += " to " + j.Plan.Target
	}
	if j.Stage == StageRender {
		return "the promotion of " + what + " changed config/ but rendered/ was not re-rendered"
	}
	return "the promotion of " + what + " was interrupted while changing config/"
}

// Is reports whether j records the promotion of patch of clusterType's
// component.
func (j *Journal) Is(clusterType, component, patch string) bool {
	return j.Plan.ClusterType == clusterType && j.Plan.Component == component && j.Plan.Patch == patch
}

// PendingError is a promotion asked for while another one is unfinished.
type PendingError struct {
	Journal *Journal
	Asked   *Plan
}

func (e *PendingError) Error() string { return e.Text(nil) }

// Text is the message with the commands it names printed by p
// (hint.Texter).
func (e *PendingError) Text(p hint.Printer) string {
	return hint.Textf("%s; finish it with %s (or drop it with %s) before promoting %s of %s/%s",
		e.Journal.Describe(), ResumeCommand, AbandonCommand, e.Asked.Patch, e.Asked.ClusterType, e.Asked.Component).Print(p)
}

// The commands that complete and drop an unfinished promotion.
var (
	ResumeCommand  = hint.Strata("promote", "--resume")
	AbandonCommand = hint.Strata("promote", "--abandon")
)

func writeJournal(ops FileOps, j *Journal) error {
	data, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	return ops.WriteJournal(data)
}

// Pending returns the unfinished promotion recorded in the journal, or nil
// when there is none.
func Pending(ops FileOps) (*Journal, error) {
	data, err := ops.ReadJournal()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the promotion journal: %w", err)
	}
	var j Journal
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, hint.Errorf("the promotion journal is damaged (%w); compare config/ with git, then drop it with %s", err, AbandonCommand)
	}
	switch {
	case j.Version != journalVersion:
		return nil, hint.Errorf("the promotion journal has version %d, not %d; finish it with the strata that wrote it, or drop it with %s", j.Version, journalVersion, AbandonCommand)
	case j.Plan == nil || (j.Stage != StageFiles && j.Stage != StageRender):
		return nil, hint.Errorf("the promotion journal is damaged (no plan or an unknown stage); compare config/ with git, then drop it with %s", AbandonCommand)
	}
	return &j, nil
}

// Resume completes the file operations of the promotion recorded in the
// journal, if any, and returns it at StageRender: the caller re-renders
// and calls Finish.
func Resume(ops FileOps) (*Journal, error) {
	j, err := Pending(ops)
	if err != nil || j == nil {
		return nil, err
	}
	if j.Stage == StageFiles {
		if err := replay(ops, j.Plan); err != nil {
			return nil, err
		}
		j.Stage = StageRender
	}
	return j, nil
}

// Finish ends the promotion recorded in the journal once rendered/ has been
// re-rendered (or the caller chose not to): it removes the journal. A
// journal still at StageFiles is not finished: that would lose the record
// of file operations not yet done.
func Finish(ops FileOps) error {
	j, err := Pending(ops)
	if err != nil || j == nil {
		return err
	}
	if j.Stage != StageRender {
		return hint.Errorf("%s; complete it with %s", j.Describe(), ResumeCommand)
	}
	if err := ops.RemoveJournal(); err != nil {
		return fmt.Errorf("removing the promotion journal: %w", err)
	}
	return nil
}

// Abandon drops the journal without doing anything it records, and returns
// what it recorded (nil when there was none). For a journal that cannot be
// completed: the user compares config/ with git instead.
func Abandon(ops FileOps) (*Journal, error) {
	j, err := Pending(ops)
	if err != nil {
		j = nil // a damaged journal is dropped too
	}
	if err := ops.RemoveJournal(); err != nil {
		return nil, fmt.Errorf("removing the promotion journal: %w", err)
	}
	return j, nil
}
