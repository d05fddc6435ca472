package action

import (
	"fmt"
	"io/fs"

	"github.com/strata-fleet/strata/internal/promote"
)

// warnUnfinished warns about a promotion that is not finished, naming
// resume, the command that finishes it, or about a journal that cannot be
// read (its error worded by message).
func (r *Repo) warnUnfinished(warn func(string), resume string, message func(error) string) {
	ops, err := promote.NewDirOps(r.Dir)
	if err != nil {
		return
	}
	j, err := promote.Pending(ops)
	switch {
	case err != nil:
		warn(message(err))
	case j != nil:
		warn(fmt.Sprintf("%s: run %s to finish it", j.Describe(), resume))
	}
}

// warnCommittedJournal warns that a journal inside the repository is
// ignored, naming the git command (git) that removes it.
func (r *Repo) warnCommittedJournal(warn func(string), git string) {
	if _, err := fs.Stat(r.FS, promote.CommittedJournal); err == nil {
		warn(fmt.Sprintf("%s is ignored: strata keeps an unfinished promotion's journal outside the repository and never replays one from it; remove it (%s rm %s)",
			promote.CommittedJournal, git, promote.CommittedJournal))
	}
}

// FinishRendered ends a promotion whose only step left was re-rendering,
// once a full render has brought rendered/ up to date, and returns its
// journal (nil: there was none to end; the preamble has warned about any
// other).
func (r *Repo) FinishRendered() (*promote.Journal, error) {
	ops, err := promote.NewDirOps(r.Dir)
	if err != nil {
		return nil, err
	}
	j, err := promote.Pending(ops)
	if err != nil || j == nil || j.Stage != promote.StageRender {
		return nil, nil
	}
	if err := promote.Finish(ops); err != nil {
		return nil, err
	}
	return j, nil
}

// AbandonPromotion is strata promote --abandon: the record of the
// unfinished promotion dropped without completing it, nothing else
// changed; nil when there is none.
func (r *Repo) AbandonPromotion() (*promote.Journal, error) {
	ops, err := promote.NewDirOps(r.Dir)
	if err != nil {
		return nil, err
	}
	return promote.Abandon(ops)
}
