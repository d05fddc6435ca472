package inflight

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/git"
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
// verdict; past the window the listing drops them.
func Settling(ctx context.Context, g git.Runner, f *fleet.Fleet, now time.Time, soak, timeout *time.Duration) ([]string, error) {
	var window time.Duration
	f.Config.Root.Walk(func(n *fleet.Node) {
		p := Override(f.Config.RolloutAt(n), soak, timeout)
		window = max(window, 2*p.Timeout+p.Soak)
	})
	out, err := g.Run(ctx, "log", "--since=@"+strconv.FormatInt(now.Add(-window).Unix(), 10), "-E",
		"--grep=^(Strata-Rollout|"+FailedTrailer+"): ", "--format=%H%x00%B%x1e")
	if err != nil {
		return nil, err
	}
	inFlight := Patches(f)
	var ids []string
	seen := map[string]bool{}
	for _, rec := range strings.Split(out, "\x1e") {
		commit, body, ok := strings.Cut(strings.TrimSpace(rec), "\x00")
		if !ok {
			continue
		}
		if step, ok := RevertOf(body); ok {
			if body, err = g.Run(ctx, "log", "-1", "--format=%B", step); err != nil {
				return nil, err
			}
		}
		id := ""
		if v := trailers(body, "Strata-Rollout"); len(v) > 0 {
			id = v[0]
		}
		if id == "" || seen[id] || slices.Contains(inFlight, id) {
			continue
		}
		seen[id] = true // the newest commit of id: its last step, or none
		if !knownRollout(f, id) {
			continue // a trailer written by hand: a glob, a name f does not have
		}
		parts := strings.SplitN(id, "/", 3)
		last, err := g.Run(ctx, "log", "-1", "--format=%H", "--", PatchFiles(parts[0], parts[1], parts[2]))
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(last) == commit {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// trailers are the values of the lines "key: value" of a commit
// message body, in order: every reader of strata's trailers reads them
// here.
func trailers(body, key string) []string {
	var out []string
	for l := range strings.SplitSeq(body, "\n") {
		if v, ok := strings.CutPrefix(l, key+": "); ok {
			out = append(out, strings.TrimSpace(v))
		}
	}
	return out
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
