package status

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/promote"
	"github.com/strata-fleet/strata/internal/rollout/inflight"
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
// commit out. The commits are read as ReadAllFolded reads them, so that
// status --patch, the web UI's matrix and its patch page name the same.
func ReadFolded(ctx context.Context, s *Status, f *fleet.Fleet, g git.Runner, patch string) error {
	if !strings.HasPrefix(patch, "patch-") {
		patch = "patch-" + patch
	}
	var err error
	s.Folded, err = readFolded(ctx, f, g, patch)
	return err
}

// ReadAllFolded fills in s.Folded with every patch folded into values.yaml
// that the components' history.yaml files record and whose files are
// gone, in fleet order, each with its fold's commit as ReadFolded has it.
func ReadAllFolded(ctx context.Context, s *Status, f *fleet.Fleet, g git.Runner) error {
	var err error
	s.Folded, err = readFolded(ctx, f, g, "")
	return err
}

// readFolded lists the folds of f (of patch only, unless ""), their
// commits read in one git log over the files of every fold of f: the
// first, newest, commit that changed a patch's files is its fold's. The
// same walk for one patch as for all (a merge can make git's history
// simplification differ with the paths asked for), and no git at all
// when no fold is asked for.
func readFolded(ctx context.Context, f *fleet.Fleet, g git.Runner, patch string) ([]Folded, error) {
	var all, out []Folded
	for _, ct := range f.ClusterTypes {
		for _, c := range ct.Components {
			seen := map[string]bool{}
			for _, fold := range slices.Backward(promote.Folds(c)) { // the last fold of a name
				if seen[fold.Patch] || hasPatch(c, fold.Patch) {
					continue
				}
				seen[fold.Patch] = true
				fo := Folded{Patch: ct.Name + "/" + c.Name + "/" + fold.Patch, At: fold.Folded}
				all = append(all, fo)
				if patch == "" || fold.Patch == patch {
					out = append(out, fo)
				}
			}
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	if _, err := g.Run(ctx, "rev-parse", "--verify", "-q", "HEAD"); err != nil {
		return out, nil // no Git history: no commits
	}
	args := []string{"log", "--format=%x1e%H%x00%s", "--name-only", "--no-renames", "--relative", "-z", "--"}
	for _, fo := range all {
		parts := strings.SplitN(fo.Patch, "/", 3)
		args = append(args, inflight.PatchFiles(parts[0], parts[1], parts[2]))
	}
	log, err := g.Run(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("reading the folds' commits: %w", err)
	}
	type commit struct{ hash, subject string }
	by := map[string]commit{} // <type>/<component>/<patch> -> its newest commit
	for rec := range strings.SplitSeq(log, "\x1e") {
		hash, rest, _ := strings.Cut(rec, "\x00")
		subject, files, _ := strings.Cut(rest, "\x00")
		for file := range strings.SplitSeq(strings.TrimPrefix(files, "\n"), "\x00") {
			// config/<type>/<component>/.../<patch>.yaml
			parts := strings.Split(file, "/")
			if len(parts) < 4 {
				continue
			}
			id := parts[1] + "/" + parts[2] + "/" + strings.TrimSuffix(parts[len(parts)-1], ".yaml")
			if _, ok := by[id]; !ok {
				by[id] = commit{hash, subject}
			}
		}
	}
	for i, fo := range out {
		out[i].Commit, out[i].Subject = by[fo.Patch].hash, by[fo.Patch].subject
	}
	return out, nil
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
