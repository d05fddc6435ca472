package cli

import (
	"fmt"

	"github.com/strata-fleet/strata/internal/git"
)

// promoteCommit is what promote --commit (or pin --commit) did.
type promoteCommit struct {
	Commit string `json:"commit"`
	Branch string `json:"branch"`
	// NewBranch says that --branch created the branch.
	NewBranch bool   `json:"newBranch,omitempty"`
	Message   string `json:"message"`
}

// printCommitted says what --commit did (the new branch named as such when
// sayNew) and, after --branch, what comes next.
func (g *globals) printCommitted(c *promoteCommit, subject string, branched, sayNew bool) {
	on := "on " + c.Branch
	switch {
	case c.Branch == "":
		on = "at a detached HEAD"
	case c.NewBranch && sayNew:
		on = "on the new branch " + c.Branch
	}
	fmt.Fprintf(g.stdout, "committed %s %s: %s\n", git.Short(c.Commit), on, subject)
	if branched {
		fmt.Fprintf(g.stdout, "next: push it and open a pull request (%s push -u origin %s)\n", g.gitCommand(), c.Branch)
	}
}
