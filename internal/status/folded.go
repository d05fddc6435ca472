package status

import (
	"context"
	"fmt"
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/promote"
	"github.com/strata-fleet/strata/internal/rollout"
)

// Folded is a patch that was folded into its component's values.yaml:
// it has no files left, and status --patch says so rather than calling
// it unknown.
type Folded struct {
	// Patch is <cluster type>/<component>/<patch>.
	Patch string `json:"patch"`
	// At is when the component's history.yaml says it was folded.
	At string `json:"at"`
	// Commit and Subject are the commit that removed its last files (the
	// fold), from Git; empty without a Git history.
	Commit  string `json:"commit,omitempty"`
	Subject string `json:"subject,omitempty"`
}

// ReadFolded fills in s.Folded for patch ("patch-001" or "001"): every
// component of f that has no file of that name and whose history.yaml
// records its fold, with the fold's commit from g (the last commit that
// changed the patch's files). A repository without Git history leaves the
// commit out.
func ReadFolded(ctx context.Context, s *Status, f *fleet.Fleet, g git.Runner, patch string) error {
	if !strings.HasPrefix(patch, "patch-") {
		patch = "patch-" + patch
	}
	s.Folded = nil
	_, headErr := g.Run(ctx, "rev-parse", "--verify", "-q", "HEAD")
	for _, ct := range f.ClusterTypes {
		for _, c := range ct.Components {
			at := promote.FoldedAt(c, patch)
			if at == "" || hasPatch(c, patch) {
				continue
			}
			fo := Folded{Patch: ct.Name + "/" + c.Name + "/" + patch, At: at}
			if headErr == nil {
				out, err := g.Run(ctx, "log", "-1", "--format=%H%x00%s", "--", rollout.PatchFiles(ct.Name, c.Name, patch))
				if err != nil {
					return fmt.Errorf("reading the fold of %s: %w", fo.Patch, err)
				}
				fo.Commit, fo.Subject, _ = strings.Cut(strings.TrimSpace(out), "\x00")
			}
			s.Folded = append(s.Folded, fo)
		}
	}
	return nil
}

// hasPatch reports whether c has a file of the patch at some node.
func hasPatch(c *fleet.Component, patch string) bool {
	for _, l := range c.Levels {
		for _, p := range l.Patches {
			if strings.TrimSuffix(p.Path[strings.LastIndex(p.Path, "/")+1:], ".yaml") == patch {
				return true
			}
		}
	}
	return false
}

// String says when the patch was folded and by which commit, as the
// table, the HTML page and the web UI all say it.
func (fo Folded) String() string {
	by := ""
	if fo.Commit != "" {
		by = fmt.Sprintf(" by %s %q", shortRevision(fo.Commit), fo.Subject)
	}
	return fmt.Sprintf("%s was folded into values.yaml at %s%s", fo.Patch, fo.At, by)
}

// folded prints a line per folded patch: when, and by which commit.
func (tw *tableWriter) folded(s *Status) {
	for _, fo := range s.Folded {
		tw.line("")
		tw.line(truncate(fo.String(), tw.opts.Width, false))
	}
}
