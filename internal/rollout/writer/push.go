package rollout

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/strata-fleet/strata/internal/live"
)

// publish pushes the steps made in one push: the one push loop of the
// rollout (a batch's, or catchUp's one step). A push refused because the
// remote moved is no failure: every step is made again on the new
// upstream (remake: a step upstream already has is not made twice; one
// that conflicts fails alone) and pushed again, at most MaxReplays times,
// waiting Env.PushBackoff, doubled each time, in between.
func (w *writer) publish(ctx context.Context, repo *repo, made []*stepReq, base string) error {
	backoff := w.env.PushBackoff
	if backoff <= 0 {
		backoff = DefaultPushBackoff
	}
	for attempt := 0; ; attempt++ {
		err := repo.push(ctx)
		if err == nil {
			return nil
		}
		if _, moved := repo.moved(ctx); !moved || attempt == MaxReplays {
			return err
		}
		if err := pause(ctx, backoff<<attempt); err != nil {
			return err
		}
		upstream, moved := repo.moved(ctx)
		if !moved {
			continue // pushed by someone meanwhile? push again
		}
		if _, err := repo.run(ctx, "reset", "-q", "--keep", upstream); err != nil {
			return fmt.Errorf("moving to %.12s, the remote's new commit: %w", upstream, err)
		}
		for _, req := range made {
			if req.err != nil || req.st == nil {
				continue
			}
			s, _, err := req.r.remake(ctx, req.plan, req.st, req.c, base, upstream)
			if err == nil {
				req.subject = s
			}
			if err != nil {
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

// waitSets reads, once for the batch, what the rendered output expects
// and the history of rendered/ after the push (expectAfter): each step's
// wait set.
func (w *writer) waitSets(ctx context.Context, repo *repo, made []*stepReq, base string, clean bool) {
	// A later step of the push may have changed the same rendered file
	// (two patches of a component): the file's last change is then that
	// step's, which contains this one. So each step picks the files its
	// commit changed, read for all in one git log.
	changed, err := w.changed(ctx, repo, made)
	if err != nil {
		return // each step reads its own (verify)
	}
	e, err := w.expectAfter(ctx, made[0].r, made, base, clean, changed)
	if err != nil {
		return
	}
	mark := made[0].r.watch.Mark()
	for _, req := range made {
		if req.err != nil {
			continue
		}
		pick := changedIn(req.st.commit)
		if len(made) > 1 {
			pick = changedFiles(changed[req.st.commit])
		}
		req.st.ws = &waitSet{commit: req.st.commit, f: e.f, expected: e.expected, history: e.history, pick: pick, mark: mark}
	}
}

// expectAfter is the expectation at HEAD after the push of made, made on
// base: the last one advanced by the steps when it was read at base, the
// hold began on a clean work tree and HEAD is base and the steps' commits
// alone (no replay, nobody else's commit); else read whole (expectAt).
func (w *writer) expectAfter(ctx context.Context, r *runner, made []*stepReq, base string, clean bool, changed map[string][]string) (*expectation, error) {
	w.emu.Lock()
	last := w.last
	w.emu.Unlock()
	var dirs []string
	var changes []live.Changed
	ok := clean && last != nil && last.head == base
	cfg, err := r.configNow()
	ok = ok && err == nil
	for _, req := range made {
		if req.err != nil || !ok {
			ok = false
			break
		}
		d := req.plan.RenderedDirs(cfg)
		ok = d != nil
		dirs = append(dirs, d...)
		changes = append(changes, live.Changed{Commit: req.st.commit, Files: changed[req.st.commit]})
	}
	if ok {
		head, err := r.repo.head(ctx)
		n, cerr := r.repo.run(ctx, "rev-list", "--count", base+".."+head)
		ok = err == nil && cerr == nil && head == changes[len(changes)-1].Commit && n == strconv.Itoa(len(changes))
	}
	if !ok {
		return w.expectAt(ctx, r)
	}
	e, err := last.advance(r.fsys, changes[len(changes)-1].Commit, dirs, changes)
	if err != nil {
		return nil, err
	}
	if advancedHook != nil {
		advancedHook(e)
	}
	w.emu.Lock()
	w.last = e
	w.emu.Unlock()
	return e, nil
}

// advancedHook, set by tests only, is told of each expectation advanced.
var advancedHook func(*expectation)

// changed reads the files under rendered/ that each step of made changed,
// by commit (a commit that changed none is absent).
func (w *writer) changed(ctx context.Context, repo *repo, made []*stepReq) (map[string][]string, error) {
	args := []string{"log", "--no-walk=unsorted", "--format=%x00%H", "--name-only", "--no-renames", "--relative"}
	for _, req := range made {
		if req.err == nil {
			args = append(args, req.st.commit)
		}
	}
	root, err := made[0].r.outputRoot()
	if err != nil {
		return nil, err
	}
	out, err := repo.run(ctx, append(args, "--", root)...)
	if err != nil {
		return nil, err
	}
	changed := map[string][]string{}
	for entry := range strings.SplitSeq(out, "\x00") {
		commit, files, _ := strings.Cut(strings.TrimSpace(entry), "\n")
		if commit != "" {
			changed[commit] = lines(strings.TrimSpace(files))
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
