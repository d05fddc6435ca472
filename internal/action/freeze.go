package action

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/strata-fleet/strata/internal/atomicfile"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/freeze"
	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/suggest"
)

// Freeze is strata freeze and strata unfreeze: a freeze of Node (""
// the whole fleet) added to config/freezes.yaml, or with Unfreeze the
// freeze of Node removed, then, unless NoCommit, the file committed on
// its own and, with Push, pushed. The caller holds the repository's lock.
type Freeze struct {
	Unfreeze bool
	Node     string
	// Reason is why (a freeze's; required).
	Reason string
	// By is who freezes or lifts the freeze ("": git's identity,
	// GitIdentity).
	By       string
	NoCommit bool
	Push     bool
	// Now is the clock the freeze is dated by (nil: time.Now).
	Now func() time.Time
}

// Frozen is what a freeze or an unfreeze did.
type Frozen struct {
	// Frozen is the freeze added, Unfrozen the one lifted.
	Frozen, Unfrozen *freeze.Freeze
	// Reason is why the freeze was lifted (an unfreeze's, optional).
	Reason string
	// Freezes are the freezes afterwards.
	Freezes []freeze.Freeze
	// Subject is the commit's subject (the commit is made unless
	// NoCommit); Commit the commit, Pushed whether it was pushed.
	Subject string
	Commit  string
	Pushed  bool
}

// Freezes reads the freezes of r (freeze.Read).
func Freezes(r *Repo) ([]freeze.Freeze, error) {
	f, err := fleet.LoadScope(r.FS, fleet.Scope{})
	if err != nil {
		return nil, err
	}
	return freeze.Read(r.FS, f.Config)
}

// Run freezes or unfreezes in r.
func (a *Freeze) Run(ctx context.Context, r *Repo) (*Frozen, error) {
	f, err := fleet.LoadScope(r.FS, fleet.Scope{})
	if err != nil {
		return nil, err
	}
	freezes, err := freeze.Read(r.FS, f.Config)
	if err != nil {
		return nil, err
	}
	if a.Node != "" && f.Config.Find(strings.Split(a.Node, "/")) == nil {
		var ids []string
		f.Config.Root.Walk(func(n *fleet.Node) { ids = append(ids, n.ID()) })
		return nil, suggest.Unknown("node", a.Node, ids)
	}
	on := newOnBranch(r.Dir, "")
	if !a.NoCommit {
		if err := a.checkClean(ctx, on); err != nil {
			return nil, err
		}
	}
	by := a.By
	if by == "" {
		by = GitIdentity(r.Dir)
	}
	if by == "" {
		return nil, usageErrorf("a freeze is recorded with who made it: give --by \"Name <email>\" or set git config user.name and user.email")
	}
	res := &Frozen{}
	var body string
	if a.Unfreeze {
		rest, gone, err := freeze.Remove(freezes, a.Node)
		if err != nil {
			return nil, err
		}
		freezes, res.Unfrozen = rest, &gone
		res.Subject = "Unfreeze " + gone.Scope()
		body = fmt.Sprintf("It was frozen by %s since %s: %s\n\nUnfrozen-by: %s\n", gone.By, gone.At.UTC().Format(time.RFC3339), gone.Reason, by)
		if why := strings.TrimSpace(a.Reason); why != "" {
			res.Reason = why
			res.Subject += ": " + firstLine(why)
			body = why + "\n\n" + body
		}
	} else {
		now := time.Now
		if a.Now != nil {
			now = a.Now
		}
		fr := freeze.Freeze{Node: a.Node, By: by, At: now().UTC().Truncate(time.Second), Reason: strings.TrimSpace(a.Reason)}
		if freezes, err = freeze.Add(freezes, fr); err != nil {
			return nil, err
		}
		res.Frozen = &fr
		res.Subject = "Freeze " + fr.Scope() + ": " + firstLine(fr.Reason)
		body = fmt.Sprintf("%s\n\nFrozen-by: %s\n", fr.Reason, by)
	}
	if err := atomicfile.WriteFile(r.Root, freeze.File, freeze.Encode(freezes)); err != nil {
		return nil, err
	}
	res.Freezes = freezes
	if a.NoCommit {
		return res, nil
	}
	done, err := on.commit(ctx, res.Subject+"\n\n"+body, freeze.File)
	if err != nil {
		return nil, fmt.Errorf("%s is written but not committed (commit it yourself): %w", freeze.File, err)
	}
	res.Commit = done.Commit
	if a.Push {
		if _, err := on.git.Out(ctx, "push", "-q"); err != nil {
			return nil, fmt.Errorf("committed %s, but pushing it failed (pull, then push it yourself): %w", git.Short(res.Commit), err)
		}
		res.Pushed = true
	}
	return res, nil
}

// checkClean refuses to commit config/freezes.yaml over changes to it not
// made by this command: the commit would take them along.
func (a *Freeze) checkClean(ctx context.Context, on *onBranch) error {
	if err := on.ready(ctx); err != nil {
		return fmt.Errorf("%s is committed, and this is not a Git repository with a commit (give --no-commit to only write it): %w", freeze.File, err)
	}
	dirty, err := on.dirty(ctx, freeze.File)
	if err != nil {
		return err
	}
	if len(dirty) > 0 {
		return fmt.Errorf("%s has uncommitted changes that the commit would take along; commit or discard them first, nothing was changed", freeze.File)
	}
	return nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
