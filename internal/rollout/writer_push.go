package rollout

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/render"
)

// publish pushes the steps made in one push. A push refused because the
// remote moved replays every step on the new upstream (remake: a step
// upstream already has is not made twice; one that conflicts fails alone)
// and pushes again, at most MaxReplays times, as Run's publish does.
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
		t := time.NewTimer(backoff << attempt)
		select {
		case <-ctx.Done():
			t.Stop()
			return context.Cause(ctx)
		case <-t.C:
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
// and the history of rendered/ after the push: each step's wait set.
func (w *writer) waitSets(ctx context.Context, repo *repo, made []*stepReq) {
	e, err := w.expectAt(ctx, made[0].r)
	if err != nil {
		return // each step reads its own (verify)
	}
	// A later step of the push may have changed the same rendered file
	// (two patches of a component): the file's last change is then that
	// step's, which contains this one. So each step picks the files its
	// commit changed, read for all in one git log.
	var changed map[string][]string
	if len(made) > 1 {
		if changed, err = w.changed(ctx, repo, made); err != nil {
			return // each step reads its own (verify)
		}
	}
	mark := made[0].r.watch.mark()
	for _, req := range made {
		if req.err != nil {
			continue
		}
		pick := changedIn(req.st.commit)
		if changed != nil {
			pick = changedFiles(changed[req.st.commit])
		}
		req.st.ws = &waitSet{commit: req.st.commit, f: e.f, expected: e.expected, history: e.history, pick: pick, mark: mark}
	}
}

// changed reads the files under rendered/ that each step of made changed,
// by commit (a commit that changed none is absent).
func (w *writer) changed(ctx context.Context, repo *repo, made []*stepReq) (map[string][]string, error) {
	args := []string{"log", "--no-walk=unsorted", "--format=%x00%H", "--name-only", "--no-renames", "--relative"}
	for _, req := range made {
		if req.err == nil {
			args = append(args, req.st.commit)
		}
	}
	out, err := repo.run(ctx, append(args, "--", render.OutputDir)...)
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
