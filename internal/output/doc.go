// Package output applies rendered files to a repository's rendered/ tree,
// safely.
//
// Plan compares what the renderer produced with what is on disk and returns
// the changes as data: files to create, files to update, stale files and
// directories to remove. Apply carries a plan out only after every target
// rendered without error, so an error leaves rendered/ untouched: it writes
// each changed file atomically (a temporary file in the same directory,
// renamed over the old one), never rewrites an unchanged file, and removes
// stale files and directories last.
//
// State remembers, per target, the fingerprint of its inputs and the size
// and modification time of its files, outside the repository (like Git's
// index), so that a run with nothing changed can skip rendering entirely.
package output
