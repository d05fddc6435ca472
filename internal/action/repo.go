package action

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/lock"
	"github.com/strata-fleet/strata/internal/rootfs"
)

// Repo is an open fleet repository: its directory and a read-only view of
// it that refuses paths (and symbolic links) leaving it.
type Repo struct {
	Dir  string
	FS   fs.FS
	Root *os.Root
	held *lock.Lock // taken by OpenWith; Close releases it
}

// LockMode is how a command holds the repository's lock from its
// preamble to its end.
type LockMode int

const (
	// NoLock takes no lock: a command that only reads, or takes the
	// lock itself for each write (rollout).
	NoLock LockMode = iota
	// SharedLock takes the lock shared, for a command that compares the
	// repository with its output (render --check): beside other readers,
	// never beside a writer. Where the local state cannot hold a lock
	// (a read-only cache in CI) it goes on without, with a warning, as
	// it does without the render state; another holder is an error.
	SharedLock
	// ExclusiveLock takes the lock for a command that writes.
	ExclusiveLock
)

// JournalCheck is what the preamble says about promotion journals.
type JournalCheck int

const (
	// WarnJournal warns about an unfinished promotion (with the command
	// that finishes it) and about a journal committed inside the
	// repository, so that an unfinished promotion is never silent.
	WarnJournal JournalCheck = iota
	// OwnJournal warns only about a committed journal: the command deals
	// with an unfinished promotion itself (promote).
	OwnJournal
	// NoJournal checks nothing: a command that must print nothing
	// (shell completion).
	NoJournal
)

// Options is a command's preamble: how it holds the lock and what it is
// told about journals.
type Options struct {
	Lock LockMode
	// LockOptions are lock.Acquire's (who holds it, how long to wait);
	// Shared follows Lock.
	LockOptions lock.Options
	Journal     JournalCheck
	// Resume is the command that finishes an unfinished promotion
	// ("strata promote --resume"), named by its warning.
	Resume string
	// Git is git as a warning names it for the user to run ("" is
	// "git"; the CLI's is "git -C ROOT" under --root).
	Git string
	// Message words an error a warning carries (nil: its message); the
	// CLI's names the commands it holds against --root (package hint).
	Message func(error) string
	// Warn receives each warning, in order, before the lock is waited
	// for (nil: none is said).
	Warn func(string)
}

// Open opens the fleet repository at dir, and nothing more.
func Open(dir string) (*Repo, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", dir, err)
	}
	return &Repo{Dir: dir, FS: rootfs.New(root), Root: root}, nil
}

// OpenWith is the preamble of every command that reads a fleet
// repository: Open, the journal warnings o asks for, then the lock in
// o.Lock's mode, held until Close.
func OpenWith(ctx context.Context, dir string, o Options) (*Repo, error) {
	r, err := Open(dir)
	if err != nil {
		return nil, err
	}
	warn := o.Warn
	if warn == nil {
		warn = func(string) {}
	}
	if o.Journal != NoJournal {
		r.warnCommittedJournal(warn, cmp.Or(o.Git, "git"))
	}
	if o.Journal == WarnJournal {
		message := o.Message
		if message == nil {
			message = error.Error
		}
		r.warnUnfinished(warn, o.Resume, message)
	}
	if o.Lock == NoLock {
		return r, nil
	}
	lo := o.LockOptions
	lo.Shared = o.Lock == SharedLock
	r.held, err = r.Lock(ctx, lo)
	var held *lock.HeldError
	switch {
	case err != nil && o.Lock == SharedLock && !errors.As(err, &held):
		warn(fmt.Sprintf("checking without the repository lock: %v", err))
	case err != nil:
		r.Close()
		return nil, err
	}
	return r, nil
}

// Close releases the lock OpenWith took, then closes the repository.
func (r *Repo) Close() error {
	if r.held != nil {
		r.held.Release()
		r.held = nil
	}
	return r.Root.Close()
}

// Lock takes the repository's lock (package lock) for a write; the caller
// releases it as soon as the write is done.
func (r *Repo) Lock(ctx context.Context, o lock.Options) (*lock.Lock, error) {
	return lock.Acquire(ctx, r.Dir, o)
}

// LockRollout takes the lock of one patch's rollout (lock.AcquireRollout),
// held for the rollout's run.
func (r *Repo) LockRollout(ctx context.Context, patch string, o lock.Options) (*lock.Lock, error) {
	return lock.AcquireRollout(ctx, r.Dir, patch, o)
}

// LoadComponent loads only the component of the cluster type, what a
// promotion works on; when either does not exist it loads the whole fleet,
// so that the error can list the valid choices.
func (r *Repo) LoadComponent(clusterType, component string) (*fleet.Fleet, error) {
	return LoadComponent(r.FS, clusterType, component)
}

// LoadComponent is Repo.LoadComponent on fsys.
func LoadComponent(fsys fs.FS, clusterType, component string) (*fleet.Fleet, error) {
	f, err := fleet.LoadComponent(fsys, clusterType, component)
	if err != nil {
		return nil, err
	}
	if ct := f.ClusterType(clusterType); ct != nil && ct.Component(component) != nil {
		return f, nil
	}
	return fleet.Load(fsys)
}
