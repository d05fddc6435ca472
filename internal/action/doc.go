// Package action holds what strata's commands do, one library action per
// verb, so that every command that needs one calls the same code: package
// cli parses flags, runs an action and prints its result (as Helm's
// pkg/cmd over pkg/action).
//
// [OpenWith] is the preamble of every command that reads a fleet
// repository: the directory opened as an os.Root (nothing resolves outside
// it) and a read-only fs.FS over it ([Open]), the warnings about
// promotion journals the command asks for ([JournalCheck]), then the
// repository lock (package lock) held until [Repo.Close], exclusive for a
// writer, shared for a reader that compares ([LockMode]).
// [Repo.LoadComponent] loads what a promotion works on;
// [Repo.FinishRendered] ends a promotion once a render has caught up;
// [Repo.RolloutLocks] are the locks of a strata rollout run (the
// repository's for each write, each patch's for its run).
//
// [Step] is one promotion step, the same for strata promote --commit and
// strata rollout: promote.Apply under its journal, a render of the targets
// the step can change (output.Run with Options.Only), the journal
// finished, then a commit whose message (promote.CommitMessage) counts the
// targets whose rendered files the commit changes against its parent (git
// diff --cached of what it stages), of the targets render renders
// (fleet.TargetCount), and carries the patch's metadata, the Approved-by
// trailers and the caller's own (Strata-Rollout).
//
// [Promote] is strata promote around that step: an interrupted promotion
// completed first (or shown by a dry run), the freeze and the step left
// uncommitted checked (laststep.go), the step applied, rendered and, with
// Commit, committed on a branch; the CLI prints its [Promoted].
//
// The other verbs that write are actions too, each a type with Run whose
// result the CLI prints: [Pin] (a revision pin moved, re-rendered,
// committed), [Freeze] (a freeze added or lifted in config/freezes.yaml,
// committed alone, pushed), [NewPatch] (strata patch new), [Render] and
// [Init] (strata init: written, rendered, a first commit);
// [Repo.AbandonPromotion] is promote --abandon.
// promote, pin and freeze commit through one helper (commit.go: the work
// tree checked before anything changes, the branch switched to, the
// command's paths committed and nothing else). A command an action names
// for the user to run next is data: a hint.Command in its result
// ([NewPatched].Next) or in its error (hint.Errorf), which the CLI prints
// with its own prefix (--root).
package action
