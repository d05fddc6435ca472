package action

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"

	"github.com/strata-fleet/strata/internal/atomicfile"
	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/localstate"
	"github.com/strata-fleet/strata/internal/promote"
)

// lastStep is the promotion step promote last took in a checkout without
// committing it, kept in the local state: a second promote of the same
// patch before a commit would take another step on top of it, which a
// user who meant to commit in between does not expect.
type lastStep struct {
	Patch  string `json:"patch"` // <type>/<component>/<patch>
	Target string `json:"target"`
	Head   string `json:"head"` // HEAD when the step was taken
}

const lastStepFile = "promote.last"

func patchID(o promote.Options) string {
	return path.Join(o.ClusterType, o.Component, o.Patch)
}

// checkPreviousStep refuses a step (to target) of the patch that the last
// promote stepped, uncommitted, with HEAD where it was then: it names the step it
// would take and the one not committed. AllowUncommitted, DryRun and
// a directory that is no Git work tree skip it.
func (a *Promote) checkPreviousStep(dir, target string) error {
	if a.AllowUncommitted || a.DryRun {
		return nil
	}
	ctx := context.Background()
	gr := git.Repo{Git: git.Exec{Dir: dir}}
	head, err := gr.Head(ctx)
	if err != nil {
		return nil // not a Git work tree (or no commit yet): nothing to commit in between
	}
	last, err := readLastStep(dir)
	if err != nil || last == nil || last.Patch != patchID(a.Options) || last.Head != head {
		return err
	}
	dirty, err := gr.Dirty(ctx, path.Join("config", a.Options.ClusterType, a.Options.Component))
	if err != nil || len(dirty) == 0 {
		return err // the step was committed, stashed or dropped meanwhile
	}
	return usageErrorf("the previous step of %s (to %s) is not committed yet; this run would take the next one (to %s) on top of it: commit the previous step first (or promote --commit), or pass --allow-uncommitted to take both in one change",
		a.Options.Patch, last.Target, target)
}

// recordStep remembers the step of p taken without a commit (see
// lastStep); a committed step, or a checkout that is no Git work tree,
// forgets it.
func (a *Promote) recordStep(dir string, p *promote.Plan, committed bool) error {
	file, err := localstate.Path(dir, lastStepFile)
	if err != nil {
		return err
	}
	head, herr := git.Repo{Git: git.Exec{Dir: dir}}.Head(context.Background())
	if committed || herr != nil || p == nil {
		if err := os.Remove(file); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	data, err := json.Marshal(lastStep{Patch: patchID(a.Options), Target: p.Target, Head: head})
	if err != nil {
		return err
	}
	return atomicfile.WriteAt(file, data)
}

func readLastStep(dir string) (*lastStep, error) {
	file, err := localstate.Path(dir, lastStepFile)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var last lastStep
	if err := json.Unmarshal(data, &last); err != nil {
		return nil, fmt.Errorf("%s: %w (remove it: it only records promote's last uncommitted step)", file, err)
	}
	return &last, nil
}
