package record

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/strata-fleet/strata/internal/git"
)

// Ref is the ref strata keeps its record under: one commit per entry,
// each with the empty tree, the entry in its message.
const Ref = "refs/strata/record"

// emptyTree is git's empty tree: a record commit changes no file.
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// Kinds of entry.
const (
	// KindStep: strata committed and pushed a step of the patch.
	KindStep = "step"
	// KindPassed: the step's targets were synced, healthy, soaked, and
	// its checks passed (Checks).
	KindPassed = "passed"
	// KindFailed: the step failed (Failures; Checks, those that ran).
	KindFailed = "failed"
	// KindReverted: strata reverted the failed step (Revert).
	KindReverted = "reverted"
)

// Entry is one fact of the record.
type Entry struct {
	Kind string `json:"kind"`
	// Patch is <type>/<component>/<patch>; Node where the step moved it,
	// Wave the nodes of its wave (when it has more than one).
	Patch string   `json:"patch"`
	Node  string   `json:"node"`
	Wave  []string `json:"wave,omitempty"`
	// Step is the step's commit; Targets (<type>/<node>) those whose
	// rendered output it delivered and Tree that output by content
	// (TreeOf at Step).
	Step    string   `json:"step"`
	Targets []string `json:"targets,omitempty"`
	// Dirs are the targets' directories where config.yaml's layout is not
	// the default (Tree is then taken over them, TreeAt); nil otherwise.
	Dirs []string `json:"dirs,omitempty"`
	Tree string   `json:"tree"`
	// PatchFiles are the patch's files by content (FilesOf) at Step, or,
	// for KindReverted, at Revert: the patch is "changed" once they are
	// not these.
	PatchFiles string `json:"patchFiles"`
	// Checks are the checks run for the step and how they ended.
	Checks   []Check  `json:"checks,omitempty"`
	Failures []string `json:"failures,omitempty"`
	// Revert is strata's revert of Step (KindReverted).
	Revert string    `json:"revert,omitempty"`
	At     time.Time `json:"at"`
	Host   string    `json:"host,omitempty"`

	// id is the record commit that holds the entry; signed its %G?;
	// body its message as read.
	id, signed, body string
}

// Check is a check run for a step.
type Check struct {
	Name string `json:"name"`
	// Definition identifies what ran (its command, query, timeout): a
	// check whose definition changed since runs again.
	Definition string `json:"definition"`
	Passed     bool   `json:"passed"`
	Reason     string `json:"reason,omitempty"`
}

// ID is the record commit that holds e ("" before it is written).
func (e Entry) ID() string { return e.id }

// Log is the record of one repository, as this clone and its remote have
// it.
type Log struct {
	Git    git.Runner
	Dir    string
	Remote string // "" keeps the record local
	// Backoff is the wait before a refused push of the record is tried
	// again, doubled each time (Append).
	Backoff time.Duration
	// Fetch, when set, runs Append's git fetch -q args, one at a time
	// with the caller's own fetches: two fetches of one repository that
	// update the record's tracking ref at once fail ("cannot lock ref").
	// Nil runs it through Git.
	Fetch func(ctx context.Context, args ...string) error
	// Exclusive, when set, runs f one at a time with the caller's
	// fetches, as Fetch: Append's update of the remote's tracking ref
	// after its push, which a fetch at the same time failed on ("cannot
	// lock ref ...: is at X but expected Y", the soak test). Nil runs f.
	Exclusive func(f func() error) error
}

// Tracking is where a remote's record is fetched to.
func Tracking(remote string) string {
	name := remote
	if !remoteName.MatchString(remote) || strings.Contains(remote, "..") {
		name = "x" + hex.EncodeToString([]byte(remote))
	}
	return "refs/strata/remotes/" + name + "/record"
}

var remoteName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]*$`)

// Refspec fetches remote's record into Tracking; a pattern, so that a
// remote without a record yet fetches nothing instead of failing.
func Refspec(remote string) string { return "+" + Ref + "*:" + Tracking(remote) + "*" }

// signing holds, per repository (Log.Dir), whether it signs its commits,
// read once a process: a runner's record commits are many.
var signing sync.Map

// signs reports whether the repository signs its commits
// (commit.gpgSign): its record commits are signed, and only signed ones
// are trusted.
func (l *Log) signs(ctx context.Context) bool {
	if v, ok := signing.Load(l.Dir); ok && l.Dir != "" {
		return v.(bool)
	}
	sign, _ := l.out(ctx, "config", "--bool", "commit.gpgSign")
	if l.Dir != "" {
		signing.Store(l.Dir, sign == "true")
	}
	return sign == "true"
}

// writes serializes a process's writes of a repository's record.
var writes sync.Map

func lockDir(dir string) func() {
	m, _ := writes.LoadOrStore(dir, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

func (l *Log) out(ctx context.Context, args ...string) (string, error) {
	return git.Repo{Git: l.Git}.Out(ctx, args...)
}

// Append writes es, in order, a commit each on Ref, and pushes Ref to the
// remote; a push refused because another clone recorded meanwhile puts
// these entries on the remote's (fetched) and pushes again, at most five
// times. The record commits are signed where the repository signs its
// commits.
func (l *Log) Append(ctx context.Context, es ...Entry) error {
	if len(es) == 0 {
		return nil
	}
	defer lockDir(l.Dir)()
	tip, _ := l.out(ctx, "rev-parse", "-q", "--verify", Ref)
	if l.Remote != "" {
		if remote, err := l.out(ctx, "rev-parse", "-q", "--verify", Tracking(l.Remote)); err == nil && remote != "" && remote != tip {
			if tip, err = l.onto(ctx, remote, tip); err != nil {
				return err
			}
		}
	}
	if es = l.unwritten(ctx, tip, es); len(es) == 0 {
		return nil
	}
	next := tip
	for _, e := range es {
		var err error
		if next, err = l.commit(ctx, e, next); err != nil {
			return err
		}
	}
	if err := l.move(ctx, next, tip); err != nil {
		return err
	}
	if l.Remote == "" {
		return nil
	}
	backoff := l.Backoff
	if backoff <= 0 {
		backoff = time.Second
	}
	for attempt := 0; ; attempt++ {
		_, err := l.out(ctx, "push", "-q", l.Remote, Ref+":"+Ref)
		if err == nil {
			// The remote's record is now this one: the next Append
			// starts from it rather than putting these entries on an
			// older fetch of it again.
			if pushed, err := l.out(ctx, "rev-parse", "-q", "--verify", Ref); err == nil {
				_ = l.exclusive(func() error {
					_, err := l.out(ctx, "update-ref", Tracking(l.Remote), pushed)
					return err
				})
			}
			return nil
		}
		if attempt == 5 {
			return fmt.Errorf("pushing %s to %s: %w", Ref, l.Remote, err)
		}
		if err := git.Pause(ctx, backoff<<attempt); err != nil {
			return err
		}
		if err := l.fetch(ctx, l.Remote, Refspec(l.Remote)); err != nil {
			return fmt.Errorf("fetching the record of %s: %w", l.Remote, err)
		}
		remote, err := l.out(ctx, "rev-parse", "-q", "--verify", Tracking(l.Remote))
		if err != nil {
			return fmt.Errorf("the record of %s: %w", l.Remote, err)
		}
		cur, _ := l.out(ctx, "rev-parse", "-q", "--verify", Ref)
		if _, err := l.onto(ctx, remote, cur); err != nil {
			return err
		}
	}
}

func (l *Log) exclusive(f func() error) error {
	if l.Exclusive != nil {
		return l.Exclusive(f)
	}
	return f()
}

func (l *Log) fetch(ctx context.Context, args ...string) error {
	if l.Fetch != nil {
		return l.Fetch(ctx, args...)
	}
	_, err := l.out(ctx, append([]string{"fetch", "-q"}, args...)...)
	return err
}

// onto puts the entries of local the remote's record lacks on remote's
// tip, moves Ref there and returns it. Where one record has the other's
// history, the newer is taken as it is; an entry the remote holds already,
// as a commit of its own (a clone that put this one's entries on its
// fetch of the remote and pushed them), is not put there again.
func (l *Log) onto(ctx context.Context, remote, local string) (string, error) {
	if local != "" && l.ancestor(ctx, remote, local) {
		return local, nil // the remote's, and this clone's since
	}
	mine := []Entry{}
	if local != "" && !l.ancestor(ctx, local, remote) {
		es, err := l.read(ctx, remote+".."+local)
		if err != nil {
			return "", err
		}
		// Every entry the remote holds, not only those local lacks as
		// commits: a copy of one may be on both sides, and another on
		// this side alone (the soak test found entries put there twice).
		theirs, err := l.read(ctx, remote)
		if err != nil {
			return "", err
		}
		held := map[string]bool{}
		for _, e := range theirs {
			held[e.body] = true
		}
		for _, e := range es {
			if !held[e.body] {
				mine = append(mine, e)
			}
		}
	}
	next := remote
	for i := len(mine) - 1; i >= 0; i-- { // oldest first
		var err error
		if next, err = l.commit(ctx, mine[i], next); err != nil {
			return "", err
		}
	}
	return next, l.move(ctx, next, local)
}

// ancestor reports whether commit a is b or one of its ancestors.
func (l *Log) ancestor(ctx context.Context, a, b string) bool {
	_, err := l.Git.Run(ctx, "merge-base", "--is-ancestor", a, b)
	return err == nil
}

// unwritten are the entries of es that say something the record (at tip,
// and the remote's as fetched) does not: an entry whose patch's newest
// entry at the same node and step commit says the same (its kind, tree,
// patch's files, revert, failures and checks by name, definition and
// outcome) says nothing new and is not written: a --once run settling a
// step whose verdict is recorded re-recorded it at every run; two runs
// that took the same step in the same second (their commit the same)
// recorded it twice.
func (l *Log) unwritten(ctx context.Context, tip string, es []Entry) []Entry {
	revs := []string{}
	if tip != "" {
		revs = append(revs, tip)
	}
	if l.Remote != "" {
		if c, err := l.out(ctx, "rev-parse", "-q", "--verify", Tracking(l.Remote)); err == nil && c != "" {
			revs = append(revs, c)
		}
	}
	var out []Entry
	for i, e := range es {
		if len(revs) == 0 {
			out = append(out, e)
			continue
		}
		// Only the entries at e's node and step are read: git finds them
		// by their subject (commit's), without the whole record parsed.
		rec, err := l.read(ctx, append([]string{"-F", "--grep", fmt.Sprintf(" %s at %s (%.12s)", e.Patch, e.Node, e.Step)}, revs...)...)
		if err != nil {
			out = append(out, e) // unreadable: written
			continue
		}
		if earlier := slices.Clone(es[:i]); !saysNothingNew(append(reversed(earlier), rec...), e) {
			out = append(out, e)
		}
	}
	return out
}

// reversed is es, newest first (es oldest first).
func reversed(es []Entry) []Entry {
	slices.Reverse(es)
	return es
}

// saysNothingNew reports whether the newest entry of rec (newest first)
// of e's patch at e's node and step commit says what e says.
func saysNothingNew(rec []Entry, e Entry) bool {
	for _, o := range rec {
		if o.Patch != e.Patch || o.Node != e.Node || o.Step != e.Step {
			continue
		}
		return o.Kind == e.Kind && o.Tree == e.Tree && o.PatchFiles == e.PatchFiles && o.Revert == e.Revert &&
			slices.Equal(o.Failures, e.Failures) && slices.EqualFunc(o.Checks, e.Checks, func(a, b Check) bool {
			return a.Name == b.Name && a.Definition == b.Definition && a.Passed == b.Passed
		})
	}
	return false
}

// move updates Ref from old ("" for none yet) to next.
func (l *Log) move(ctx context.Context, next, old string) error {
	if old == "" {
		old = strings.Repeat("0", len(next))
	}
	if _, err := l.out(ctx, "update-ref", "-m", "strata record", Ref, next, old); err != nil {
		return fmt.Errorf("writing %s: %w", Ref, err)
	}
	return nil
}

// commit writes e as a record commit on parent ("" for the first).
func (l *Log) commit(ctx context.Context, e Entry, parent string) (string, error) {
	if e.At.IsZero() {
		e.At = time.Now().UTC().Truncate(time.Second)
	}
	if e.Host == "" {
		e.Host, _ = os.Hostname()
	}
	b, err := json.Marshal(e)
	if err != nil {
		return "", err
	}
	msg := fmt.Sprintf("strata record: %s %s at %s (%.12s)\n\n%s", e.Kind, e.Patch, e.Node, e.Step, b)
	args := []string{"commit-tree", emptyTree, "-m", msg}
	if parent != "" {
		args = append(args, "-p", parent)
	}
	if l.signs(ctx) {
		args = append(args, "-S")
	}
	c, err := l.out(ctx, args...)
	if err != nil {
		return "", fmt.Errorf("writing the record of %s at %s: %w", e.Patch, e.Node, err)
	}
	return c, nil
}

// Read reads the record, this clone's and its remote's as last fetched,
// newest first. An entry that cannot be parsed is left out (Trusted would
// refuse it anyway); Ignored says which.
func (l *Log) Read(ctx context.Context) (*Entries, error) {
	revs := []string{}
	for _, ref := range []string{Ref, Tracking(l.Remote)} {
		if l.Remote == "" && ref != Ref {
			continue
		}
		if c, err := l.out(ctx, "rev-parse", "-q", "--verify", ref); err == nil && c != "" {
			revs = append(revs, c)
		}
	}
	if len(revs) == 0 {
		return &Entries{log: l}, nil
	}
	es, err := l.read(ctx, revs...)
	if err != nil {
		return nil, err
	}
	return &Entries{log: l, list: es}, nil
}

func (l *Log) read(ctx context.Context, revs ...string) ([]Entry, error) {
	out, err := l.Git.Run(ctx, append([]string{"log", "--format=%x1e%H%x00%G?%x00%B"}, revs...)...)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", Ref, err)
	}
	var es []Entry
	seen := map[string]bool{}
	for rec := range strings.SplitSeq(out, "\x1e") {
		f := strings.SplitN(rec, "\x00", 3)
		if len(f) < 3 {
			continue
		}
		e, err := Parse(f[2])
		// The same entry twice (its message, as two commits: a record
		// pushed again by an older strata) is one fact, read once.
		body := strings.TrimSpace(f[2])
		if err != nil || seen[f[0]] || seen[body] {
			continue
		}
		seen[f[0]], seen[body] = true, true
		e.id, e.signed, e.body = f[0], f[1], body
		es = append(es, e)
	}
	slices.SortStableFunc(es, func(a, b Entry) int { return b.At.Compare(a.At) })
	return es, nil
}

// Parse is the entry a record commit's message holds: its body, after
// the subject line, one JSON object naming a patch.
func Parse(message string) (Entry, error) {
	_, body, _ := strings.Cut(message, "\n\n")
	var e Entry
	if err := json.Unmarshal([]byte(strings.TrimSpace(body)), &e); err != nil {
		return Entry{}, fmt.Errorf("a record entry: %w", err)
	}
	if e.Patch == "" {
		return Entry{}, fmt.Errorf("a record entry that names no patch")
	}
	return e, nil
}

// Entries is the record as read, newest first.
type Entries struct {
	log  *Log
	list []Entry

	mu   sync.Mutex
	locs map[string]location // located, by entry
}

// Of are the entries of patch, newest first.
func (r *Entries) Of(patch string) []Entry {
	var out []Entry
	for _, e := range r.list {
		if e.Patch == patch {
			out = append(out, e)
		}
	}
	return out
}

// All are the entries of every patch, newest first.
func (r *Entries) All() []Entry { return slices.Clone(r.list) }

// Trusted says why e is not strata's own record (nil: it is): its step
// commit must be on HEAD's history and carry the patch's Strata-Rollout
// trailer, the rendered tree it claims must be the one at that commit, a
// revert must be on HEAD's history, and where the repository signs its
// commits (commit.gpgSign) the entry's own commit must bear a good
// signature. Where a rewrite of the branch (a force-push) made the step
// or the revert again with another hash, the entry is tied to the copy
// (copyOf): the commit of HEAD's history with the patch's trailer, the
// rendered tree and the patch's files the entry claims, and the first
// later change of the patch's files, for a revert, being the files it
// claims.
func (r *Entries) Trusted(ctx context.Context, e Entry) error {
	l := r.log
	if l.signs(ctx) && e.signed != "G" && e.signed != "U" {
		return fmt.Errorf("record %.12s is not signed with a good signature (%s), and this repository signs its commits", e.id, e.signed)
	}
	if e.Step == "" {
		return fmt.Errorf("record %.12s names no step commit", e.id)
	}
	if e.Kind == KindReverted && e.Revert == "" {
		return fmt.Errorf("record %.12s names no revert", e.id)
	}
	return r.located(ctx, e).err
}

// CommitsOf are the commits of HEAD's history that are e's step and, for
// a revert, e's revert: e.Step and e.Revert, or their copies where a
// rewrite of the branch made them again (Trusted); "" for an entry that
// is not trusted.
func (r *Entries) CommitsOf(ctx context.Context, e Entry) (step, revert string) {
	if r.Trusted(ctx, e) != nil {
		return "", ""
	}
	loc := r.located(ctx, e)
	return loc.step, loc.revert
}

// Naming is the newest trusted entry of patch of kind that names commit
// of HEAD's history: as its step, or as its revert for a revert, or as
// their copy after a rewrite of the branch (CommitsOf).
func (r *Entries) Naming(ctx context.Context, patch, kind, commit string) (Entry, bool) {
	for _, e := range r.Of(patch) {
		if e.Kind != kind {
			continue
		}
		step, revert := r.CommitsOf(ctx, e)
		if kind == KindReverted {
			step = revert
		}
		if step != "" && step == commit {
			return e, true
		}
	}
	return Entry{}, false
}

// Holds reports whether the failure e, trusted (a failed step, or
// strata's revert of one), still holds for the patch whose files
// (FilesOf at HEAD) are files: they are those it recorded, or, for a
// failed step, those before the step: the step undone since (by a revert
// whose record has not arrived, or that a rewrite of the branch made
// again) and the patch unchanged. A run that read only the record's
// files took the undone step again.
func (r *Entries) Holds(ctx context.Context, e Entry, files string) bool {
	if e.PatchFiles == files {
		return true
	}
	if e.Kind != KindFailed {
		return false
	}
	step, _ := r.CommitsOf(ctx, e)
	if step == "" {
		return false
	}
	before, err := FilesOf(ctx, r.log.Git, step+"^", e.Patch)
	return err == nil && before == files
}

// location is where e's commits are on HEAD's history (the commits, or
// their copies), or why they are not (err).
type location struct {
	step, revert string
	err          error
}

// located is e's location, checked once per entry (Trusted).
func (r *Entries) located(ctx context.Context, e Entry) location {
	key := e.id + "\x00" + e.body
	r.mu.Lock()
	loc, ok := r.locs[key]
	r.mu.Unlock()
	if ok {
		return loc
	}
	loc = r.locate(ctx, e)
	r.mu.Lock()
	if r.locs == nil {
		r.locs = map[string]location{}
	}
	r.locs[key] = loc
	r.mu.Unlock()
	return loc
}

func (r *Entries) locate(ctx context.Context, e Entry) location {
	l := r.log
	if err := onHistory(ctx, l, e.Step); err != nil {
		if step, revert := r.copyOf(ctx, e); step != "" {
			return location{step: step, revert: revert}
		}
		return location{err: fmt.Errorf("record %.12s: %w", e.id, err)}
	}
	if err := r.claims(ctx, e, e.Step); err != nil {
		return location{err: err}
	}
	loc := location{step: e.Step}
	if e.Kind == KindReverted {
		loc.revert = e.Revert
		if err := onHistory(ctx, l, e.Revert); err != nil {
			if loc.revert = r.revertCopy(ctx, e, e.Step); loc.revert == "" {
				return location{err: fmt.Errorf("record %.12s: %w", e.id, err)}
			}
		}
	}
	return loc
}

// claims says why commit is not the step e claims: a step of e's patch
// (its Strata-Rollout trailer) whose rendered output is e's Tree.
func (r *Entries) claims(ctx context.Context, e Entry, commit string) error {
	l := r.log
	body, err := l.out(ctx, "log", "-1", "--format=%B", commit)
	if err != nil {
		return err
	}
	if !slices.Contains(strings.Split(body, "\n"), "Strata-Rollout: "+e.Patch) {
		return fmt.Errorf("record %.12s: %.12s is not a step of %s's rollout", e.id, commit, e.Patch)
	}
	step := e
	step.Step = commit
	tree, err := step.tree(ctx, l.Git)
	if err != nil {
		return err
	}
	if tree != e.Tree {
		return fmt.Errorf("record %.12s: the rendered output of %.12s is not the one it claims", e.id, commit)
	}
	return nil
}

// copyOf is the copy on HEAD's history of e's step, made again by a
// rewrite of the branch: the newest commit with the patch's trailer
// whose rendered tree and patch's files are those e claims (for a
// revert, whose revert has a copy after it: revert); "" when there is
// none.
func (r *Entries) copyOf(ctx context.Context, e Entry) (step, revert string) {
	out, err := r.log.Git.Run(ctx, "log", "--format=%H", "-F", "--grep", "Strata-Rollout: "+e.Patch, "HEAD")
	if err != nil {
		return "", ""
	}
	for c := range strings.FieldsSeq(out) {
		if r.claims(ctx, e, c) != nil {
			continue
		}
		if e.Kind == KindReverted {
			if revert := r.revertCopy(ctx, e, c); revert != "" {
				return c, revert
			}
			continue
		}
		if files, err := FilesOf(ctx, r.log.Git, c, e.Patch); err == nil && files == e.PatchFiles {
			return c, ""
		}
	}
	return "", ""
}

// revertCopy is the copy on HEAD's history of the revert e names, after
// its step (step): the first later commit that changed the patch's
// files, when they are then those e claims; "" when there is none.
func (r *Entries) revertCopy(ctx context.Context, e Entry, step string) string {
	parts := strings.SplitN(e.Patch, "/", 3)
	if len(parts) != 3 {
		return ""
	}
	spec := ":(glob)config/" + parts[0] + "/" + parts[1] + "/**/" + strings.TrimSuffix(parts[2], ".yaml") + ".yaml"
	out, err := r.log.Git.Run(ctx, "log", "--reverse", "--format=%H", step+"..HEAD", "--", spec)
	if err != nil {
		return ""
	}
	first, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
	if first == "" {
		return ""
	}
	if files, err := FilesOf(ctx, r.log.Git, first, e.Patch); err == nil && files == e.PatchFiles {
		return first
	}
	return ""
}

// onHistory reports whether commit is HEAD or one of its ancestors.
func onHistory(ctx context.Context, l *Log, commit string) error {
	if _, err := l.Git.Run(ctx, "merge-base", "--is-ancestor", commit, "HEAD"); err != nil {
		var ge *git.Error
		if errors.As(err, &ge) || strings.Contains(err.Error(), "exit status 1") {
			return fmt.Errorf("%.12s is not on this branch's history", commit)
		}
		return err
	}
	return nil
}

// TreeOf identifies by content the rendered output of targets
// (<type>/<node>, under rendered/) at commit: a hash of each target
// directory's Git tree ("-" where it has none).
func TreeOf(ctx context.Context, g git.Runner, commit string, targets []string) (string, error) {
	return treeOf(ctx, g, commit, targets, func(t string) string { return "rendered/" + t })
}

// TreeAt is TreeOf for targets whose directories a layout other than the
// default places: dirs are the directories themselves.
func TreeAt(ctx context.Context, g git.Runner, commit string, dirs []string) (string, error) {
	return treeOf(ctx, g, commit, dirs, func(d string) string { return d })
}

// tree identifies e's rendered output at its step by content, as the
// writer of e did: by its directories when it names them, else by its
// targets under rendered/.
func (e Entry) tree(ctx context.Context, g git.Runner) (string, error) {
	if len(e.Dirs) > 0 {
		return TreeAt(ctx, g, e.Step, e.Dirs)
	}
	return TreeOf(ctx, g, e.Step, e.Targets)
}

func treeOf(ctx context.Context, g git.Runner, commit string, keys []string, dir func(string) string) (string, error) {
	ts := slices.Sorted(slices.Values(keys))
	h := sha256.New()
	if len(ts) > 0 {
		args := []string{"rev-parse"}
		for _, t := range ts {
			args = append(args, commit+":"+dir(t))
		}
		out, err := g.Run(ctx, args...)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if err != nil || len(lines) != len(ts) {
			// Some target has no directory there: one at a time.
			lines = make([]string, len(ts))
			for i, t := range ts {
				o, err := g.Run(ctx, "rev-parse", "-q", "--verify", commit+":"+dir(t))
				lines[i] = strings.TrimSpace(o)
				if err != nil || lines[i] == "" {
					lines[i] = "-"
				}
			}
		}
		for i, t := range ts {
			fmt.Fprintf(h, "%s %s\n", t, lines[i])
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

// FilesOf identifies by content the files of a patch (<type>/<component>/
// <patch>) at commit: every copy under its component's directory.
func FilesOf(ctx context.Context, g git.Runner, commit, patch string) (string, error) {
	parts := strings.SplitN(patch, "/", 3)
	if len(parts) != 3 {
		return "", fmt.Errorf("patch %q: want <cluster type>/<component>/<patch>", patch)
	}
	out, err := g.Run(ctx, "ls-tree", "-r", "--full-tree", commit, "--", "config/"+parts[0]+"/"+parts[1])
	if err != nil {
		return "", err
	}
	name := "/" + strings.TrimSuffix(parts[2], ".yaml") + ".yaml"
	h := sha256.New()
	for l := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		if _, p, ok := strings.Cut(l, "\t"); ok && strings.HasSuffix(p, name) {
			fmt.Fprintln(h, l)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}
