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

// A rollout's last step can remove the patch's files (the fold, or the
// revert of its first step) while its rollout is not over: the fold still
// has its wait, soak and checks, the revert is a failure to report. Both
// are read from strata's record.

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
	// Source is "revert" or "step" (strata's record of Commit) or "live".
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

// LastNode is the node of the last of ids (<cluster type>/<node>), which
// the events name for a fold.
func LastNode(ids []string, clusterType string) string {
	if len(ids) == 0 {
		return ""
	}
	return strings.TrimPrefix(ids[len(ids)-1], clusterType+"/")
}

// Settling lists the patches whose last step removed their files (a fold,
// or the revert of the first step), from strata's trusted record (never
// from trailers), within the longest window a step's verdict can take at
// now: twice the longest timeout plus the longest soak (with the run's
// overrides) since the step's commit. Their runs settle that step, as for
// a patch in flight. A fold whose pass is recorded is listed no more, by
// status and a runner's strata_rollouts_in_flight alike.
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
		// The newest step or revert recorded of each patch.
		if (e.Kind != record.KindStep && e.Kind != record.KindReverted) || seen[e.Patch] || slices.Contains(inFlight, e.Patch) {
			continue
		}
		seen[e.Patch] = true
		if e.At.Before(since) || !knownRollout(f, e.Patch) {
			continue
		}
		parts := strings.SplitN(e.Patch, "/", 3)
		last, err := g.Run(ctx, "log", "-1", "--format=%H%x00%ct", "--", PatchFiles(parts[0], parts[1], parts[2]))
		if err != nil {
			return nil, err
		}
		hash, secs, _ := strings.Cut(strings.TrimSpace(last), "\x00")
		if at, err := strconv.ParseInt(secs, 10, 64); err != nil || time.Unix(at, 0).Before(since) {
			continue
		}
		// The branch's commit (its copy, after a rewrite); "" for an entry
		// not strata's own, said where the patch is read.
		commit, revert := rec.CommitsOf(ctx, e)
		if e.Kind == record.KindReverted {
			commit = revert
		}
		if commit == "" || hash != commit {
			continue
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

// readRecord reads strata's record, this clone's and its remote's.
func readRecord(ctx context.Context, g git.Runner) (*record.Entries, error) {
	remote := ""
	if b, err := g.Run(ctx, "symbolic-ref", "--short", "HEAD"); err == nil {
		if r, err := g.Run(ctx, "config", "branch."+strings.TrimSpace(b)+".remote"); err == nil {
			remote = strings.TrimSpace(r)
		}
	}
	return (&record.Log{Git: g, Remote: remote}).Read(ctx)
}
