package action

import (
	"context"
	"fmt"
	"time"

	"github.com/strata-fleet/strata/internal/lock"
)

// RolloutLocks are the locks of a strata rollout run, decided here for
// every caller: the repository's lock only while a step writes (Lock,
// rollout.Env.Lock), never while it waits or soaks, and the lock of each
// patch's rollout for its run (Hold, rollout.Env.Hold), so that a second
// run of the same patch is refused, naming the first.
type RolloutLocks struct {
	Lock func(ctx context.Context) (release func(), err error)
	Hold func(ctx context.Context, patch string) (release func(), err error)
	held func()
}

// RolloutLockOptions say which rollout run takes the locks.
type RolloutLockOptions struct {
	// Patch is the patch of a rollout of one (<type>/<component>/<patch>),
	// whose lock RolloutLocks takes at once and holds until Release; ""
	// for a run of every patch in flight (--all, --watch), whose Hold
	// takes each patch's lock for its rollout.
	Patch string
	// DryRun takes no lock: a dry run writes nothing.
	DryRun bool
	// Options are the command line's lock options (who holds it, --wait).
	Options lock.Options
	// Waiting says a wait for another holder of a lock (nil: nothing).
	Waiting func(msg string)
}

// RolloutLockWait is how long a rollout's step waits for the repository
// lock at least: other writers hold it for one write (a render, a step),
// not for their waits.
const RolloutLockWait = 10 * time.Minute

// RolloutLocks returns the locks of the rollout run o says, taking the
// patch's lock of a rollout of one at once.
func (r *Repo) RolloutLocks(ctx context.Context, o RolloutLockOptions) (*RolloutLocks, error) {
	if o.Waiting == nil {
		o.Waiting = func(string) {}
	}
	l := &RolloutLocks{}
	if o.DryRun {
		return l, nil
	}
	hold := r.patchLock(o)
	if o.Patch == "" {
		l.Lock, l.Hold = r.writeLock(o), hold
		return l, nil
	}
	release, err := hold(ctx, o.Patch)
	if err != nil {
		return nil, err
	}
	l.Lock, l.held = r.writeLock(o), release
	return l, nil
}

// Release releases the patch's lock of a rollout of one.
func (l *RolloutLocks) Release() {
	if l.held != nil {
		l.held()
		l.held = nil
	}
}

// writeLock takes the repository's lock for one of the rollout's writes.
// It waits for another writer (a step of another rollout, a render) at
// least RolloutLockWait, longer with --wait, saying so. The rollouts of
// this run (--all, --watch) take turns before the lock, so that the wait
// it reports is for another process, never this one.
func (r *Repo) writeLock(o RolloutLockOptions) func(context.Context) (func(), error) {
	turn := make(chan struct{}, 1)
	lo := o.Options
	lo.Wait = max(lo.Wait, RolloutLockWait)
	lo.Waiting = func(h lock.Holder) {
		o.Waiting(fmt.Sprintf("waiting up to %s for the repository lock held by %s", lo.Wait, h))
	}
	return func(ctx context.Context) (func(), error) {
		select {
		case turn <- struct{}{}:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
		l, err := r.Lock(ctx, lo)
		if err != nil {
			<-turn
			return nil, err
		}
		return func() { l.Release(); <-turn }, nil
	}
}

// patchLock takes the lock of one patch's rollout (lock.AcquireRollout),
// held for its run.
func (r *Repo) patchLock(o RolloutLockOptions) func(context.Context, string) (func(), error) {
	return func(ctx context.Context, patch string) (func(), error) {
		lo := o.Options
		lo.Waiting = func(h lock.Holder) {
			if lo.Wait > 0 {
				o.Waiting(fmt.Sprintf("waiting up to %s for the lock of the rollout of %s held by %s", lo.Wait, patch, h))
			}
		}
		l, err := r.LockRollout(ctx, patch, lo)
		if err != nil {
			return nil, err
		}
		return func() { l.Release() }, nil
	}
}
