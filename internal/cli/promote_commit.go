package cli

import (
	"fmt"
	"strings"
)

// promoteCommit is what promote --commit did.
type promoteCommit struct {
	Commit string `json:"commit"`
	Branch string `json:"branch"`
	// NewBranch says that --branch created the branch.
	NewBranch bool   `json:"newBranch,omitempty"`
	Message   string `json:"message"`
}

// printCommit says what --commit did and what comes next.
func (o *promoteOptions) printCommit(c *promoteCommit) {
	subject, _, _ := strings.Cut(c.Message, "\n")
	on := "on " + c.Branch
	switch {
	case c.Branch == "":
		on = "at a detached HEAD"
	case c.NewBranch:
		on = "on the new branch " + c.Branch
	}
	fmt.Fprintf(o.stdout, "committed %s %s: %s\n", short(c.Commit), on, subject)
	if o.branch != "" {
		fmt.Fprintf(o.stdout, "next: push it and open a pull request (%s push -u origin %s)\n", o.gitCommand(), c.Branch)
	}
}
