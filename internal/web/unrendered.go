package web

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/output"
)

// unrenderedMaxAge bounds how long an answer of Options.Unrendered is
// kept: a hand edit of rendered/, uncommitted and not by strata render,
// moves none of what the answers are keyed by.
const unrenderedMaxAge = time.Minute

// unrendered keeps the answers of Options.Unrendered, the render's check
// behind the rollouts' "render" wait: it renders every target its render
// state does not vouch for, which, in a checkout never rendered or after
// a pull, is every target under a patch's locations at each request (on a
// bench fleet of 1,000 targets and 36 patches with no render state, 15-18
// s a page at a load of 20, 3.6 CPU-seconds; kept, 0.3-0.6 s after the
// first). The answers hold while the fleet loaded (the snapshot), HEAD
// and the render state are those they were read at, and for at most
// unrenderedMaxAge.
type unrendered struct {
	mu      sync.Mutex
	key     string
	at      time.Time
	answers map[string]unrenderedAnswer
}

type unrenderedAnswer struct {
	targets []string
	err     error
}

// unrenderedFor is Options.Unrendered over snap's fleet with its answers
// kept (unrendered); nil without Options.Unrendered.
func (s *Server) unrenderedFor(ctx context.Context, snap *snapshot, g git.Runner) func(dirs []string) ([]string, error) {
	if s.opts.Unrendered == nil || snap.fleet == nil {
		return nil
	}
	key := fmt.Sprintf("%d\x00%s", snap.gen, s.repositoryState(ctx, g))
	return func(dirs []string) ([]string, error) {
		k := "\x00every target"
		if dirs != nil {
			k = strings.Join(dirs, "\x00")
		}
		u := &s.unrendered
		u.mu.Lock() // held while the check runs: one at a time, never twice
		defer u.mu.Unlock()
		if u.key != key || time.Since(u.at) > unrenderedMaxAge {
			u.key, u.at, u.answers = key, time.Now(), map[string]unrenderedAnswer{}
		}
		if a, ok := u.answers[k]; ok {
			return a.targets, a.err
		}
		ts, err := s.opts.Unrendered(snap.fleet.Config, dirs)
		u.answers[k] = unrenderedAnswer{targets: ts, err: err}
		return ts, err
	}
}

// repositoryState names what, besides the fleet loaded, an answer of the
// render's check depends on: HEAD (a pull or checkout moves rendered/) and
// the render state's file (strata render rewrites it).
func (s *Server) repositoryState(ctx context.Context, g git.Runner) string {
	head, err := g.Run(ctx, "rev-parse", "-q", "--verify", "HEAD")
	if err != nil {
		head = "no HEAD"
	}
	state := "no render state"
	if p, err := output.StatePath(s.opts.Dir); err == nil {
		if info, err := os.Stat(p); err == nil {
			state = fmt.Sprintf("%d %d", info.ModTime().UnixNano(), info.Size())
		}
	}
	return strings.TrimSpace(head) + "\x00" + state
}
