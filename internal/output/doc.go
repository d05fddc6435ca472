// Package output brings a repository's rendered/ tree to what the renderer
// produces: confined, all or nothing, and only what changed.
//
// [Run] loads the fleet, finds the targets whose inputs or files changed
// since the last run ([State], stamps from package treestamp, kept in the
// checkout's local state), renders them, stages each changed target whole
// under .strata-render/ and switches the staged directories into place
// under a journal (switch.go), so that a run interrupted at any point
// leaves every target's directory whole, old or new; the next run completes
// or discards it ([Result].Completed). Every write goes through an os.Root
// on the repository (fileOps); a symbolic link in rendered/ is an error.
// Callers hold the repository lock (package lock) around Run.
//
// docs/output.md describes the staging, the switch, the state and its racy
// rule in full.
package output
