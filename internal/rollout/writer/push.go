package writer

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/live"
)

// MaxReplays bounds how many times a step is replayed on a remote that
// moved before its push.
const MaxReplays = 5

// DefaultPushBackoff is the wait before the first replay; it doubles for
// each further one.
const DefaultPushBackoff = time.Second

// ConflictError is a step that cannot be replayed on the new upstream
// (someone changed the same patch or node): its rollout stops, unpushed.
// Remote is "<remote> <branch>", Upstream the commit it moved to.
type ConflictError struct {
	Step             string
	Remote, Upstream string
	Reason           string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("the step to %s was not pushed: %s moved meanwhile (now %.12s) and %s; look at what changed (git log), then run the rollout again",
		e.Step, e.Remote, e.Upstream, e.Reason)
}

// PushOne pushes st, made on base by r's catch-up under the lock its
// caller holds (Publish), records it and tells r (Rollout.Pushed).
func (w *Writer) PushOne(ctx context.Context, r Rollout, st *Step, base string) error {
	if err := w.Publish(ctx, r, st, base); err != nil {
		return err
	}
	if err := recordSteps(ctx, []*req{{r: r, st: st}}); err != nil {
		return err
	}
	r.Pushed(st)
	return nil
}

// Publish pushes st, one commit r made on base under the lock its caller
// holds (a catch-up's step, a revert), made again on a moved remote by
// r.Remake like a batch's steps (publish).
func (w *Writer) Publish(ctx context.Context, r Rollout, st *Step, base string) error {
	one := []*req{{r: r, st: st}}
	if err := w.publish(ctx, r.Repo(), one, base); err != nil {
		return err
	}
	return one[0].err
}

// publish pushes the steps made in one push (the one push loop). On a
// remote that moved every step is made again there (Rollout.Remake; one
// that conflicts fails alone) and pushed again, at most MaxReplays times,
// after Options.PushBackoff, doubled each time.
func (w *Writer) publish(ctx context.Context, repo *Repo, made []*req, base string) error {
	backoff := w.opts.PushBackoff
	if backoff <= 0 {
		backoff = DefaultPushBackoff
	}
	for attempt := 0; ; attempt++ {
		err := repo.Push(ctx)
		if err == nil {
			return nil
		}
		upstream, moved, ferr := repo.Moved(ctx)
		if ferr != nil { // nothing is made again on a guess
			return errors.Join(err, ferr)
		}
		if repo.Landed(ctx, upstream) {
			return nil
		}
		if !moved || attempt == MaxReplays {
			return err
		}
		if err := git.Pause(ctx, backoff<<attempt); err != nil {
			return err
		}
		if upstream, moved, ferr = repo.Moved(ctx); ferr != nil {
			return errors.Join(err, ferr)
		} else if !moved {
			continue // pushed by someone meanwhile? push again
		}
		if err := repo.ResetKeep(ctx, upstream); err != nil {
			return err
		}
		for _, req := range made {
			if req.err != nil || req.st == nil {
				continue
			}
			if err := req.r.Remake(ctx, req.st, base, upstream); err != nil {
				req.err = err
				if stop := w.leftDirty(ctx, req); stop != nil {
					w.failRest(made, req, stop)
					break
				}
			}
		}
		base = upstream
	}
}

// expectAll reads, once for the push, what each step's wait joins
// (Step.Expect, Pick, Mark; expectAfter).
func (w *Writer) expectAll(ctx context.Context, repo *Repo, made []*req, base string, clean bool) {
	// A later step may change the same rendered file: each step picks the
	// files its own commit changed, read for all in one git log.
	changed, err := w.filesChanged(ctx, repo, made)
	if err != nil {
		return // each step reads its own (verify)
	}
	e, err := w.expectAfter(ctx, made[0].r, made, base, clean, changed)
	if err != nil {
		return
	}
	var mark uint64
	if w.opts.Mark != nil {
		mark = w.opts.Mark()
	}
	for _, req := range made {
		if req.err != nil {
			continue
		}
		pick := ChangedIn(req.st.Commit)
		if len(made) > 1 {
			pick = changedFiles(changed[req.st.Commit])
		}
		req.st.Expect, req.st.Pick, req.st.Mark = e, pick, mark
	}
}

// expectAfter is the expectation at HEAD after the push of made on base:
// the last one advanced by the steps when it was read at base on a clean
// tree and HEAD is base plus the steps alone; else read whole (ExpectAt).
func (w *Writer) expectAfter(ctx context.Context, r Rollout, made []*req, base string, clean bool, changed map[string][]string) (*Expectation, error) {
	w.emu.Lock()
	last := w.last
	w.emu.Unlock()
	var dirs []string
	var changes []live.Changed
	ok := clean && last != nil && last.Head == base
	for _, req := range made {
		if req.err != nil || !ok {
			ok = false
			break
		}
		ok = req.st.Dirs != nil
		dirs = append(dirs, req.st.Dirs...)
		changes = append(changes, live.Changed{Commit: req.st.Commit, Files: changed[req.st.Commit]})
	}
	if ok {
		head, err := r.Repo().Git.Head(ctx)
		n, cerr := r.Repo().Git.Out(ctx, "rev-list", "--count", base+".."+head)
		ok = err == nil && cerr == nil && head == changes[len(changes)-1].Commit && n == strconv.Itoa(len(changes))
	}
	if !ok {
		return w.ExpectAt(ctx, r)
	}
	e, err := last.advance(r.FS(), changes[len(changes)-1].Commit, dirs, changes)
	if err != nil {
		return nil, err
	}
	if AdvancedHook != nil {
		AdvancedHook(e)
	}
	w.emu.Lock()
	w.last = e
	w.emu.Unlock()
	return e, nil
}

// AdvancedHook, set by tests only, is told of each expectation advanced.
var AdvancedHook func(*Expectation)

// filesChanged reads the files under rendered/ that each step of made
// changed, by commit (a commit that changed none is absent).
func (w *Writer) filesChanged(ctx context.Context, repo *Repo, made []*req) (map[string][]string, error) {
	args := []string{"log", "--no-walk=unsorted", "--format=%x00%H", "--name-only", "--no-renames", "--relative"}
	for _, req := range made {
		if req.err == nil {
			args = append(args, req.st.Commit)
		}
	}
	root, err := made[0].r.OutputRoot()
	if err != nil {
		return nil, err
	}
	out, err := repo.Git.Out(ctx, append(args, "--", root)...)
	if err != nil {
		return nil, err
	}
	changed := map[string][]string{}
	for entry := range strings.SplitSeq(out, "\x00") {
		commit, files, _ := strings.Cut(strings.TrimSpace(entry), "\n")
		if commit != "" {
			changed[commit] = Lines(strings.TrimSpace(files))
		}
	}
	return changed, nil
}

// changedFiles picks the objects whose rendered file is one of files.
func changedFiles(files []string) func(live.AppState) bool {
	set := make(map[string]bool, len(files))
	for _, f := range files {
		set[f] = true
	}
	return func(s live.AppState) bool { return set[s.File] }
}

// Lines are the lines of git's output s, none for "".
func Lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// ExpectAt is the expectation at HEAD, read once for all the rollouts
// that wait on the same commit (BENCHMARKS.md, delivery); the caller
// reads beside the writer or under the lock.
func (w *Writer) ExpectAt(ctx context.Context, r Rollout) (*Expectation, error) {
	repo := r.Repo()
	head, err := repo.Git.Head(ctx)
	if err != nil {
		return nil, err
	}
	w.emu.Lock()
	defer w.emu.Unlock()
	if w.last != nil && w.last.Head == head {
		return w.last, nil
	}
	e, err := ReadExpectation(r.FS(), w.opts.Dir)
	if err != nil {
		return nil, err
	}
	e.History.Fetch = func(string) error {
		_, err := repo.Fetch(w.ctx)
		return err
	}
	w.last = e
	return e, nil
}
