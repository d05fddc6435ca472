package action

import (
	"context"
	"fmt"
	"strings"

	"github.com/strata-fleet/strata/internal/bootstrap"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/hint"
	"github.com/strata-fleet/strata/internal/output"
	"github.com/strata-fleet/strata/internal/pin"
)

// Pin is strata pin: a revision pin moved in config.yaml (package pin),
// the fleet re-rendered and, with Commit, config.yaml and rendered/
// committed on a branch. The caller holds the repository's lock unless
// DryRun.
type Pin struct {
	Options pin.Options
	// Force pins a revision the Git clone cannot resolve.
	Force    bool
	DryRun   bool
	NoRender bool
	// Approver is who approves the gates the pin passes ("": git's
	// identity, GitIdentity).
	Approver string
	// Commit commits the pin (on Branch, created at HEAD when it does not
	// exist, when Branch is not "").
	Commit bool
	Branch string
	// Warn receives what the Git clone cannot tell of the revision, before
	// anything changes (nil: nothing is said).
	Warn func(string)
	// Rendered and Switching are output.Options' (nil: none).
	Rendered  func()
	Switching func(path string)
}

// Pinned is what a pin did (or, with DryRun, would do).
type Pinned struct {
	Plan *pin.Plan
	// Resolution is what the Git clone knows of the revision (nil: the
	// pin changes nothing).
	Resolution *pin.Resolution
	// Approver is who approved the gates the pin passes.
	Approver string
	// Branch is the revision the clusters' root objects read the pin at
	// (the repository's revision).
	Branch   string
	Rendered *output.Result
	Commit   *BranchCommit
	// OutputRoot is the rendered tree's directory (config.yaml's layout).
	OutputRoot string
}

// Run pins in r. What was given is checked first (node, cluster type,
// revision, the commit's files), then the gate, then the pin is written.
func (a *Pin) Run(ctx context.Context, r *Repo) (*Pinned, error) {
	f, err := fleet.Load(r.FS)
	if err != nil {
		return nil, err
	}
	p, err := pin.Prepare(f, a.Options)
	if err != nil {
		return nil, err
	}
	res := &Pinned{Plan: p, Approver: a.Approver, Branch: bootstrap.BranchRevision(f), OutputRoot: f.Config.OutputRoot()}
	on, err := a.check(ctx, r, f, res)
	if err != nil {
		return nil, err
	}
	if !p.Changed || a.DryRun {
		return res, nil
	}
	if on != nil {
		if _, err := on.switchTo(ctx); err != nil {
			return nil, err
		}
	}
	if err := pin.Apply(r.Dir, p); err != nil {
		return nil, fmt.Errorf("writing %s: %w", p.File, err)
	}
	if !a.NoRender {
		if res.Rendered, err = rerender(r, a.Rendered, a.Switching); err != nil {
			return nil, hint.Errorf("the pin is set but rendering failed (fix it, then run %s): %w", hint.Strata("render"), err)
		}
	}
	if on != nil {
		if res.Commit, err = on.commit(ctx, pin.Message(p, res.Approver), fleet.ConfigPath, res.OutputRoot); err != nil {
			return nil, fmt.Errorf("the pin is set and rendered but not committed (commit it yourself): %w", err)
		}
	}
	return res, nil
}

// check checks what was given (the revision, the commit's files), then
// the gate and who approves it, before anything changes; it says the
// revision's warnings. It returns the branch to commit on (nil: none).
func (a *Pin) check(ctx context.Context, r *Repo, f *fleet.Fleet, res *Pinned) (*onBranch, error) {
	p := res.Plan
	var err error
	if p.Changed {
		if res.Resolution, err = pin.Resolve(r.Dir, p.Revision, a.Force); err != nil {
			return nil, err
		}
		if err := pin.CheckTree(r.Dir, res.Resolution.Commit, f, p); err != nil {
			return nil, err
		}
	}
	var on *onBranch
	if p.Changed && a.Commit {
		if on, err = a.checkCommit(ctx, r); err != nil {
			return nil, err
		}
	}
	if err := pin.Gate(p, a.Options); err != nil {
		return nil, err
	}
	if len(p.Gates) > 0 && res.Approver == "" {
		res.Approver = GitIdentity(r.Dir)
	}
	if len(p.Gates) > 0 && res.Approver == "" && a.Commit {
		return nil, usageErrorf("the pin passes the manual gate %s: its commit records who approved; give --approver \"Name <email>\" or set git config user.name and user.email", strings.Join(p.Gates, ", "))
	}
	if res.Resolution != nil && a.Warn != nil {
		for _, w := range res.Resolution.Warnings {
			a.Warn(w)
		}
	}
	return on, nil
}

// checkCommit checks, before the gate and before anything changes, that
// the pin's commit would take only the pin's files: config/ must have no
// uncommitted change, or the commit would take it along or leave rendered/
// in it out of step with config/.
func (a *Pin) checkCommit(ctx context.Context, r *Repo) (*onBranch, error) {
	on := newOnBranch(r.Dir, a.Branch)
	if err := on.ready(ctx); err != nil {
		return nil, fmt.Errorf("--commit: %s is not in a Git repository with a commit: %w", r.Dir, err)
	}
	dirty, err := on.dirty(ctx, "config")
	if err != nil {
		return nil, err
	}
	if len(dirty) > 0 {
		return nil, fmt.Errorf("--commit: config/ has uncommitted changes, which the pin's commit would take along or leave rendered/ in it out of step with config/; commit or stash them first (git stash push -- config), nothing was changed:\n  %s",
			strings.Join(dirty, "\n  "))
	}
	return on, nil
}
