package action

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/strata-fleet/strata/internal/atomicfile"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/hint"
	"github.com/strata-fleet/strata/internal/promote"
)

// NewPatch is strata patch new: the next free patch of a component
// written at a node of the sequence (promote.PrepareNewPatch), never over
// an existing file. The caller holds the repository's lock unless DryRun.
type NewPatch struct {
	Options promote.NewPatchOptions
	DryRun  bool
}

// NewPatched is the patch written (or, with DryRun, that would be) and
// the commands to run next, in order: render, then (when the patch holds
// a change) its promotion.
type NewPatched struct {
	*promote.NewPatch
	Next []hint.Command
}

// Run writes the patch in r.
func (a *NewPatch) Run(r *Repo) (*NewPatched, error) {
	f, err := fleet.Load(r.FS)
	if err != nil {
		return nil, err
	}
	p, err := promote.PrepareNewPatch(f, a.Options)
	if err != nil {
		return nil, err
	}
	if !a.DryRun {
		if _, err := r.Root.Lstat(p.Path); !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s exists already: strata patch new never overwrites a file", p.Path)
		}
		if err := atomicfile.WriteFile(r.Root, p.Path, p.Data); err != nil {
			return nil, fmt.Errorf("writing %s: %w", p.Path, err)
		}
	}
	res := &NewPatched{NewPatch: p, Next: []hint.Command{hint.Strata("render")}}
	if !p.Empty {
		res.Next = append(res.Next, hint.Strata("promote", a.Options.ClusterType, a.Options.Component, p.Patch))
	}
	return res, nil
}
