// Package git runs the git program for strata: [Exec] runs it in a work
// tree ([Runner] is what callers take, so tests can inject one), a failure
// is an [*Error] carrying git's own message, and [Repo] holds the few
// operations several commands share (the current commit and branch,
// uncommitted changes under some paths, switching to a branch, committing
// some paths only: with plumbing from the index when git commit would do
// no more, commit.go; [Repo.Batch] reads what git commit would do once
// for a batch of commits). A git command that talks to a remote (fetch, push,
// ls-remote) runs under a deadline (Exec.NetTimeout: the command's
// --timeout, else DefaultNetTimeout), and git is killed with every
// helper it started (its process group) when the deadline passes.
//
// Reading history in bulk (diff's base revision, live's history of
// rendered/) stays with its package: those are pipelines of git plumbing
// specific to their one caller.
package git
