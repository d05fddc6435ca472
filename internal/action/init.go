package action

import (
	"fmt"

	"github.com/strata-fleet/strata/internal/output"
	"github.com/strata-fleet/strata/internal/scaffold"
)

// Init is strata init: the small fleet of package scaffold written into
// Dir, rendered, and unless NoGit made a Git repository with a first
// commit (scaffold.InitGit).
type Init struct {
	Dir     string
	Options scaffold.Options
	NoGit   bool
}

// Initialized is what Init wrote: the files, the targets rendered, and
// what it did with Git.
type Initialized struct {
	Written []string
	Targets int
	Git     scaffold.Git
}

// Run writes, renders and commits the new repository.
func (a *Init) Run() (*Initialized, error) {
	written, err := scaffold.Write(a.Dir, a.Options)
	if err != nil {
		return nil, err
	}
	res, err := output.Run(output.Options{Root: a.Dir})
	if err != nil {
		return nil, fmt.Errorf("rendering the new repository: %w", err)
	}
	done := &Initialized{Written: written, Targets: res.Targets}
	if !a.NoGit {
		if done.Git, err = scaffold.InitGit(a.Dir); err != nil {
			return nil, fmt.Errorf("the repository is written and rendered, but %w", err)
		}
	}
	return done, nil
}
