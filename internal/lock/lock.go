package lock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/strata-fleet/strata/internal/localstate"
)

// Holder is who holds a lock.
type Holder struct {
	PID     int       `json:"pid"`
	Host    string    `json:"host"`
	Command string    `json:"command"`
	Since   time.Time `json:"since"`
}

func (h Holder) String() string {
	if h.PID == 0 {
		return "another process"
	}
	return fmt.Sprintf("%q (pid %d on %s) since %s", h.Command, h.PID, h.Host, h.Since.Format(time.DateTime))
}

// HeldError is Acquire's error when another process holds the lock for
// longer than the caller waits.
type HeldError struct {
	Holder Holder
	Waited time.Duration
	Path   string // the lock file
	// Of is what is locked: "" for the repository, else "the rollout of
	// <type>/<component>/<patch>" (AcquireRollout).
	Of string
}

func (e *HeldError) Error() string {
	waited := "did not wait"
	if e.Waited > 0 {
		waited = "waited " + e.Waited.Round(time.Millisecond).String()
	}
	of := e.Of
	if of == "" {
		of = "the repository"
	}
	return fmt.Sprintf("%s is locked by %s; %s (run again once it is done, or wait longer with --wait)", of, e.Holder, waited)
}

// Options says how Acquire takes a lock.
type Options struct {
	// Command is what the holder does, shown to others (its command line).
	Command string
	// Wait is how long to wait for another holder to finish (0: not at all).
	Wait time.Duration
	// Waiting, when set, is called once when Acquire starts waiting, with
	// the holder.
	Waiting func(Holder)
	// Shared takes the lock for reading: any number of readers hold it at
	// once, and none while a writer (an exclusive holder) does. A reader
	// does not write itself into the lock file, so a writer waiting for
	// readers is told "another process".
	Shared bool
}

// Lock is a held repository lock.
type Lock struct {
	f      *os.File
	shared bool
}

// pollInterval is how often a waiting Acquire tries again.
const pollInterval = 25 * time.Millisecond

// Acquire takes the lock of the repository at repoRoot, waiting up to
// o.Wait while another process holds it, or until ctx is done.
func Acquire(ctx context.Context, repoRoot string, o Options) (*Lock, error) {
	return acquire(ctx, repoRoot, "lock", "", o)
}

// AcquireRollout takes the lock of one patch's rollout (patch is
// <type>/<component>/<patch>) in the repository at repoRoot, a lock file
// of its own in the local state: two runs of the same patch refuse each
// other, naming the holder, while rollouts of other patches go on (each
// takes the repository's lock only while it writes).
func AcquireRollout(ctx context.Context, repoRoot, patch string, o Options) (*Lock, error) {
	return acquire(ctx, repoRoot, "rollout-"+url.QueryEscape(patch)+".lock", "the rollout of "+patch, o)
}

// acquire takes the lock in the file name of the local state; of is what
// it locks ("" for the repository).
func acquire(ctx context.Context, repoRoot, name, of string, o Options) (*Lock, error) {
	what, lockName := of, "the lock of "+of
	if of == "" {
		what, lockName = "the repository", "the repository lock"
	}
	p, err := localstate.Path(repoRoot, name)
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", what, err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, fmt.Errorf("locking %s: %w", what, err)
	}
	start := time.Now()
	var tick *time.Ticker
	var f *os.File
	for {
		var ok bool
		if f, ok, err = lockFile(p, o.Shared); err != nil {
			return nil, fmt.Errorf("locking %s with %s: %w", what, p, err)
		}
		if ok {
			break
		}
		if tick == nil {
			if o.Waiting != nil {
				o.Waiting(readHolder(p))
			}
			tick = time.NewTicker(pollInterval)
			defer tick.Stop()
		}
		if time.Since(start) >= o.Wait {
			return nil, &HeldError{Holder: readHolder(p), Waited: o.Wait, Path: p, Of: of}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for %s held by %s: %w", lockName, readHolder(p), ctx.Err())
		case <-tick.C:
		}
	}
	if o.Shared {
		return &Lock{f: f, shared: true}, nil
	}
	host, _ := os.Hostname()
	data, _ := json.Marshal(Holder{PID: os.Getpid(), Host: host, Command: o.Command, Since: time.Now().Truncate(time.Second)})
	if err := errors.Join(f.Truncate(0), writeAt0(f, data)); err != nil {
		unlock(f)
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", what, err)
	}
	return &Lock{f: f}, nil
}

// lockFile opens the lock file at p and takes its lock; ok is false when
// another process holds it. It also checks that the file locked is still
// the one at p: a lock on a file removed meanwhile would exclude nobody, so
// it tries again.
func lockFile(p string, shared bool) (f *os.File, ok bool, err error) {
	for {
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, false, err
		}
		ok, err := tryLock(f, shared)
		if err != nil || !ok {
			f.Close()
			return nil, false, err
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, false, err
		}
		if pi, err := os.Stat(p); err == nil && os.SameFile(fi, pi) {
			return f, true, nil
		}
		f.Close()
	}
}

func writeAt0(f *os.File, data []byte) error {
	_, err := f.WriteAt(data, 0)
	return err
}

// readHolder reads who holds the lock at p; the zero Holder when it cannot
// tell (the holder has not written itself yet).
func readHolder(p string) Holder {
	var h Holder
	if data, err := os.ReadFile(p); err == nil {
		json.Unmarshal(data, &h)
	}
	return h
}

// Release gives the lock up. The lock file stays, empty.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	if !l.shared {
		l.f.Truncate(0) // only who holds it now matters; a failure leaves a line that says nothing
	}
	err := errors.Join(unlock(l.f), l.f.Close())
	l.f = nil
	return err
}
