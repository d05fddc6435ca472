package rollout

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/strata-fleet/strata/internal/fleet"
)

// A step's checks that passed are recorded as a git note on the step's
// commit, under NotesRef, so that a later run (a scheduled --once job
// from a fresh clone, while the next step waits at a gate) does not run
// them again. The note holds one JSON object a line, a checkRecord; the
// notes commit's author says who ran them. The ref is pushed to the
// rollout's remote and fetched with its branch (FetchBranch) into
// notesTracking; two clones that recorded at once merge their notes
// (cat_sort_uniq: the union of the lines), never force-push them.

// NotesRef is the notes ref the rollout records passed checks under.
const NotesRef = "refs/notes/strata"

// checkRecord is a check that passed for a step's commit.
type checkRecord struct {
	Check string `json:"check"`
	// Definition identifies what ran (checkDefinition): a check whose
	// definition changed since runs again.
	Definition string    `json:"definition"`
	Patch      string    `json:"patch"`
	Step       string    `json:"step"`
	Passed     time.Time `json:"passed"`
	Host       string    `json:"host,omitempty"`
}

// key is what a later run looks a check up by.
func (c checkRecord) key() string { return c.Step + "\x00" + c.Check + "\x00" + c.Definition }

// checkDefinition hashes what a check runs: its name, command, timeout
// and Prometheus query (not where config.yaml declares it).
func checkDefinition(c fleet.Check) string {
	h := sha256.New()
	fmt.Fprintf(h, "name %q\ncommand %q\ntimeout %s\n", c.Name, c.Command, c.Timeout)
	if p := c.Prometheus; p != nil {
		fmt.Fprintf(h, "prometheus %q %q\n", p.URL, p.Query)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// remoteName is what a remote's name must look like to name a ref as
// it is.
var remoteName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]*$`)

// notesTracking is where the remote's notes are fetched to, under
// refs/notes/ (which git notes merge requires): the remote's name, or
// its hex for a name that cannot be part of a ref ("team/fleet").
func notesTracking(remote string) string {
	name := remote
	if !remoteName.MatchString(remote) || strings.Contains(remote, "..") {
		name = "x" + hex.EncodeToString([]byte(remote))
	}
	return "refs/notes/remotes/" + name + "/strata"
}

// notesRefspec fetches remote's notes into notesTracking. It is a pattern
// so that a remote without notes yet fetches nothing instead of failing.
func notesRefspec(remote string) string {
	return "+" + NotesRef + "*:" + notesTracking(remote) + "*"
}

// lockNotes serializes the writes of the notes ref of the repository in
// dir among the rollouts of a process (its fetcher's notes mutex); it
// returns the unlock.
func lockNotes(dir string) func() {
	f := fetcherOf(dir)
	f.notes.Lock()
	return f.notes.Unlock
}

// passedChecks reads the checks recorded as passed for commit, in this
// clone's notes and the remote's as last fetched, by key. A note that
// cannot be read is no record: its checks run.
func (r *repo) passedChecks(ctx context.Context, commit string) map[string]checkRecord {
	out := map[string]checkRecord{}
	refs := []string{NotesRef}
	if r.remote != "" {
		refs = append(refs, notesTracking(r.remote))
	}
	for _, ref := range refs {
		note, err := r.run(ctx, "notes", "--ref", ref, "show", commit)
		if err != nil {
			continue // no note
		}
		for _, line := range strings.Split(note, "\n") {
			var c checkRecord
			if json.Unmarshal([]byte(line), &c) == nil && c.Check != "" {
				out[c.key()] = c
			}
		}
	}
	return out
}

// recordChecks records recs as passed on commit and pushes the notes to
// the remote, merging the remote's first when it refuses them (another
// clone recorded meanwhile), at most MaxReplays times, waiting backoff
// (DefaultPushBackoff when 0), doubled each time, in between.
func (r *repo) recordChecks(ctx context.Context, commit string, recs []checkRecord, backoff time.Duration) error {
	if backoff <= 0 {
		backoff = DefaultPushBackoff
	}
	defer lockNotes(r.dir)()
	tracking := notesTracking(r.remote)
	if err := r.mergeNotes(ctx, tracking); err != nil {
		return err
	}
	lines := make([]string, len(recs))
	for i, c := range recs {
		b, err := json.Marshal(c)
		if err != nil {
			return err
		}
		lines[i] = string(b)
	}
	if _, err := r.run(ctx, "notes", "--ref", NotesRef, "append", "-m", strings.Join(lines, "\n"), commit); err != nil {
		return fmt.Errorf("adding the note: %w", err)
	}
	if r.remote == "" {
		return nil // a repository without a remote keeps it
	}
	for attempt := 0; ; attempt++ {
		_, err := r.run(ctx, "push", "-q", r.remote, NotesRef+":"+NotesRef)
		if err == nil {
			return nil
		}
		if attempt == MaxReplays {
			return fmt.Errorf("pushing %s to %s: %w", NotesRef, r.remote, err)
		}
		if err := pause(ctx, backoff<<attempt); err != nil {
			return err
		}
		if err := Fetch(ctx, Env{Dir: r.dir, Git: r.git.Git}, r.remote, notesRefspec(r.remote)); err != nil {
			return fmt.Errorf("fetching the notes of %s: %w", r.remote, err)
		}
		if err := r.mergeNotes(ctx, tracking); err != nil {
			return err
		}
	}
}

// mergeNotes merges the remote's notes as last fetched (tracking) into
// NotesRef: the union of the lines of each note.
func (r *repo) mergeNotes(ctx context.Context, tracking string) error {
	if _, err := r.run(ctx, "rev-parse", "-q", "--verify", tracking); err != nil {
		return nil // the remote has no notes yet
	}
	if _, err := r.run(ctx, "notes", "--ref", NotesRef, "merge", "-q", "-s", "cat_sort_uniq", tracking); err != nil {
		return fmt.Errorf("merging the notes of %s: %w", tracking, err)
	}
	return nil
}

// host is recorded with the checks a run passed.
func host() string {
	h, _ := os.Hostname()
	return h
}
