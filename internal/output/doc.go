// Package output brings a repository's rendered/ tree to what the renderer
// produces: confined, all or nothing, and only what changed.
//
// Run loads the fleet, finds the targets whose inputs or files changed
// since the last run (State), renders them, and compares each with its
// directory. A target that changed is staged whole (its new files written,
// its unchanged ones hard-linked) under the staging area .strata-render/,
// which git ignores through its own .gitignore. Nothing in rendered/
// changes until every target rendered and was staged; then a journal of
// the switch is written and synced in the checkout's local state (package
// localstate, outside the repository: a journal or staging area committed
// to the repository is never replayed, only removed), and each staged
// target directory is
// switched into place in one step (renameat2 RENAME_EXCHANGE on Linux,
// else two renames), stale files and directories are moved out, and the
// staging area is removed. A run interrupted at any point (an error, a
// full disk, kill -9) leaves every target's directory whole, old or new;
// the next run (any command that renders) completes a recorded switch,
// and says which paths it moved (Result.Completed), or discards an
// unfinished staging. Errors and crashes at every file
// operation are tested in failure_test.go.
//
// Every write goes through an os.Root on the repository and through
// fileOps; a symbolic link anywhere in rendered/ (rendered/ itself, a
// target's directory, templates/, a file) is an error naming it, found
// before anything is written.
//
// State remembers, per target, the fingerprint of its inputs and the
// stamps (package treestamp: size, times and inode) of its files and
// directories, in the checkout's local state outside the repository
// (package localstate), so that a run with nothing changed renders
// nothing. It vouches only for files it
// recorded after writing: a link, or a file replaced by another, makes the
// target render again. A target's stamps are taken as it is staged (each
// file as written, each directory under the target's once complete); only
// its directory and the files it linked, which the switch and the clean-up
// change, are stat-ed after them. On Linux an unchanged target is checked with one
// fstatat per file and directory and no directory listing (treestamp.Dir).
// A stamp of the file system's clock tick when the run ends is racy
// (treestamp's rule; the run reads that clock by changing a directory,
// racy.go): its target is left out of the state, to be rendered and
// compared again by the next run.
//
// Callers hold the repository lock (package lock) around Run. Staged files
// are not synced one by one (that would cost more than the render): the
// guarantees hold for process crashes and write errors; after a power
// loss, run strata render --no-cache.
package output
