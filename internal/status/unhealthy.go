package status

import (
	"context"
	"slices"
	"strings"

	"github.com/strata-fleet/strata/internal/git"
)

// Trailers of the commits of strata rollout that ReadUnhealthy reads.
const (
	rolloutTrailer   = "Strata-Rollout: "
	unhealthyTrailer = "Strata-Unhealthy: "
)

// ReadUnhealthy fills in Patch.Unhealthy (status --live): the clusters
// the rollout of each patch in s let fail within a step's failure budget
// (rollout maxUnhealthy:), as the Strata-Unhealthy trailers of its commits
// (those with its Strata-Rollout trailer) name them, newest first. A
// commit that folded a patch of the same name ends the search for it: it
// and the trailers before it are an earlier patch's. One git log, of the commits
// with such a trailer only.
func ReadUnhealthy(ctx context.Context, g git.Runner, s *Status) error {
	out, err := g.Run(ctx, "log", "--format=%x00%s%n%b", "--grep=^"+rolloutTrailer, "HEAD")
	if err != nil {
		return err
	}
	found := map[string][]string{}
	folded := map[string]bool{}
	for msg := range strings.SplitSeq(out, "\x00") {
		subject, body, _ := strings.Cut(msg, "\n")
		var key string
		var lines []string
		for l := range strings.SplitSeq(body, "\n") {
			if k, ok := strings.CutPrefix(l, rolloutTrailer); ok {
				key = strings.TrimSpace(k)
			} else if u, ok := strings.CutPrefix(l, unhealthyTrailer); ok {
				lines = append(lines, strings.TrimSpace(u))
			}
		}
		if key == "" || folded[key] {
			continue
		}
		// promote.Subject of a fold: "Fold ..." or "..., fold it into ...".
		if strings.HasPrefix(subject, "Fold ") || strings.Contains(subject, ", fold it into ") {
			folded[key] = true // a patch in flight is not folded: an earlier one was
			continue
		}
		found[key] = append(found[key], lines...)
	}
	for i := range s.ClusterTypes {
		ct := &s.ClusterTypes[i]
		ct.Patches = slices.Clone(ct.Patches) // s may share them (WithLive)
		for j := range ct.Patches {
			p := &ct.Patches[j]
			p.Unhealthy = found[ct.Name+"/"+p.Component+"/"+p.Name]
		}
	}
	return nil
}
