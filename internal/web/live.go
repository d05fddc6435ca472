package web

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"

	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/render"
	"github.com/strata-fleet/strata/internal/status"
)

// LiveFunc reads the live state of the fleet r renders (live.Load with the
// user's kubeconfig, in the CLI).
type LiveFunc func(ctx context.Context, r *render.Renderer) (*live.Report, error)

// liveState is the last live state read, and how many times it changed:
// pages refresh when it does, as when the repository changes.
type liveState struct {
	mu     sync.RWMutex
	rep    *live.Report
	err    error
	digest [32]byte
	gen    int
}

// refreshLive reads the live state once, and reports whether it changed.
func (s *Server) refreshLive(ctx context.Context) bool {
	snap := s.current()
	if s.opts.Live == nil || snap.err != nil {
		return false
	}
	rep, err := s.opts.Live(ctx, &render.Renderer{Fleet: snap.fleet, Chart: snap.chart})
	if err != nil {
		s.opts.Logger.Warn("reading the live state", "err", err)
	}
	d := liveDigest(rep, err)
	s.live.mu.Lock()
	defer s.live.mu.Unlock()
	s.live.rep, s.live.err = rep, err
	if d == s.live.digest {
		return false
	}
	s.live.digest = d
	s.live.gen++
	return true
}

// liveDigest hashes what the UI shows of a live state.
func liveDigest(rep *live.Report, err error) [32]byte {
	h := sha256.New()
	fmt.Fprintf(h, "%v\x00", err)
	if rep != nil {
		for _, in := range rep.ArgoCDs {
			fmt.Fprintf(h, "%s\x00%s\x00", in.Cluster, in.Error)
		}
		for _, c := range rep.Cells {
			for _, a := range c.Apps {
				fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00", a.Cluster, a.Name, a.State, a.Reason)
			}
		}
		for _, u := range rep.Unmapped {
			fmt.Fprintf(h, "%s\x00%s\x00", u.ArgoCD, u.Name)
		}
	}
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}

// statusOf is the snapshot's status with the last live state, if any.
func (s *Server) statusOf(snap *snapshot) (*status.Status, error) {
	s.live.mu.RLock()
	defer s.live.mu.RUnlock()
	if s.live.rep == nil {
		return snap.status, s.live.err
	}
	return snap.status.WithLive(s.live.rep), s.live.err
}

func (s *Server) liveGeneration() int {
	s.live.mu.RLock()
	defer s.live.mu.RUnlock()
	return s.live.gen
}
