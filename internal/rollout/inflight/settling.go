package inflight

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/record"
)

// A rollout's last step can remove the patch's files: the fold into
// values.yaml, or the revert of its first step. The patch is then no
// longer in the fleet (Patches), yet its rollout is not over: the fold
// still has its wait, soak and checks, which may fail it, and a revert is
// a failure to report. Both are read from strata's record (record.go):
// the last commit that changed the patch's files is a step strata
// recorded (the fold) or strata's recorded revert of one. Settling lists
// the candidates from the commits' trailers; only the record settles them.

// FailedTrailer is the trailer of a revert commit of the rollout that says
// why the step failed, one per failure: "Strata-Failed: NODE: REASON".
const FailedTrailer = "Strata-Failed"

// Commit is a commit of the patch's history.
type Commit struct {
	Commit  string    `json:"commit"`
	At      time.Time `json:"at"`
	Subject string    `json:"subject"`
}

// Failed is a failure of a patch's rollout.
type Failed struct {
	// Source is "revert" (strata's revert of a failed step, Commit, in
	// its record), "step" (a failed step, Commit, in strata's record) or
	// "live" (the live state of its Applications).
	Source string    `json:"source"`
	Commit string    `json:"commit,omitempty"`
	At     time.Time `json:"at,omitzero"`
	Reason string    `json:"reason"`
}

// PatchFiles is the Git pathspec of a patch's files at every node of its
// component: the commits that changed it are the patch's steps.
func PatchFiles(clusterType, component, patch string) string {
	return ":(glob)config/" + clusterType + "/" + component + "/**/" + strings.TrimSuffix(patch, ".yaml") + ".yaml"
}

// RevertOf is the commit a revert's message (git revert's) names.
func RevertOf(body string) (string, bool) {
	_, rest, ok := strings.Cut(body, "This reverts commit ")
	if !ok {
		return "", false
	}
	return strings.TrimRight(strings.Fields(rest + " ")[0], "."), true
}

// LastNode is the node of the last of ids (<cluster type>/<node>): the
// node the events name for the step (its policy is foldPolicy's).
func LastNode(ids []string, clusterType string) string {
	if len(ids) == 0 {
		return ""
	}
	return strings.TrimPrefix(ids[len(ids)-1], clusterType+"/")
}

// Settling lists the patches whose files the last step of their rollout
// removed (a fold, or the revert of the first step) within the longest
// window a step's verdict can take at now: twice the longest timeout of
// the sequence plus its longest soak (the run's --soak and --timeout applied (Override)), from
// the step's commit time. Their runs settle that step (exit 6 while it
// soaks, 0 once done, 1 failed), so that rollout --all --once and a
// runner check them as they check a patch in flight. The margin of one
// more timeout lets a scheduled job that runs less often still see the
// verdict; past the window the listing drops them. The patches come from
// strata's record (its trusted entries: the step commit, or the revert,
// is the last commit of the patch's files), never from commit trailers,
// which anyone can write. A fold whose pass strata recorded is settled:
// listed no more, by status and a runner's strata_rollouts_in_flight
// alike (the runner counted it for the whole window, status dropped it
// once it had nothing left to wait for: the soak test saw them apart for
// two minutes).
func Settling(ctx context.Context, g git.Runner, f *fleet.Fleet, now time.Time, soak, timeout *time.Duration) ([]string, error) {
	var window time.Duration
	f.Config.Root.Walk(func(n *fleet.Node) {
		p := Override(f.Config.RolloutAt(n), soak, timeout)
		window = max(window, 2*p.Timeout+p.Soak)
	})
	rec, err := readRecord(ctx, g)
	if err != nil {
		return nil, err
	}
	since := now.Add(-window)
	inFlight := Patches(f)
	var ids []string
	seen := map[string]bool{}
	passed := map[string]record.Entry{} // patch and step commit: a pass of it
	for _, e := range rec.All() {
		if e.Kind == record.KindPassed {
			passed[e.Patch+" "+e.Step] = e
		}
	}
	for _, e := range rec.All() {
		// The newest step or revert strata recorded of each patch: the
		// last step of its rollout, unless a commit of the patch's files
		// came after it.
		if (e.Kind != record.KindStep && e.Kind != record.KindReverted) || seen[e.Patch] || slices.Contains(inFlight, e.Patch) {
			continue
		}
		seen[e.Patch] = true
		if e.At.Before(since) || !knownRollout(f, e.Patch) {
			continue
		}
		commit := e.Step
		if e.Kind == record.KindReverted {
			commit = e.Revert
		}
		parts := strings.SplitN(e.Patch, "/", 3)
		last, err := g.Run(ctx, "log", "-1", "--format=%H%x00%ct", "--", PatchFiles(parts[0], parts[1], parts[2]))
		if err != nil {
			return nil, err
		}
		hash, secs, _ := strings.Cut(strings.TrimSpace(last), "\x00")
		if hash != commit {
			continue
		}
		if at, err := strconv.ParseInt(secs, 10, 64); err != nil || time.Unix(at, 0).Before(since) {
			continue
		}
		if rec.Trusted(ctx, e) != nil {
			continue // not strata's own: said where the patch is read
		}
		if p, ok := passed[e.Patch+" "+e.Step]; ok && e.Kind == record.KindStep && rec.Trusted(ctx, p) == nil {
			continue // the fold passed: settled
		}
		ids = append(ids, e.Patch)
	}
	slices.Sort(ids)
	return ids, nil
}

// Override is p with a run's --soak and --timeout, where given.
func Override(p fleet.RolloutPolicy, soak, timeout *time.Duration) fleet.RolloutPolicy {
	if soak != nil {
		p.Soak = *soak
	}
	if timeout != nil {
		p.Timeout = *timeout
	}
	return p
}

// readRecord reads strata's record for Flights: this clone's, and its
// branch's remote's as last fetched.
func readRecord(ctx context.Context, g git.Runner) (*record.Entries, error) {
	remote := ""
	if b, err := g.Run(ctx, "symbolic-ref", "--short", "HEAD"); err == nil {
		if r, err := g.Run(ctx, "config", "branch."+strings.TrimSpace(b)+".remote"); err == nil {
			remote = strings.TrimSpace(r)
		}
	}
	return (&record.Log{Git: g, Remote: remote}).Read(ctx)
}
