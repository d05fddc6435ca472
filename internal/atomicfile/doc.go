// Package atomicfile is strata's one way of writing a file: confined to a
// directory tree, never through a symbolic link, and atomic.
//
// WriteFile and Write take an *os.Root, so no name resolves outside the
// tree it was opened on, and refuse a name any of whose existing components
// is a symbolic link (*SymlinkError): a link committed into a repository
// cannot make strata write somewhere else, even inside the repository.
// The content goes to a temporary file next to the destination (TempName),
// which is synced to disk, given its mode and renamed over the destination;
// the directory is synced after the rename. Readers see the old file or
// the new one, never a mix, and a crash leaves at most the temporary file,
// which the next write of the same name replaces.
//
// Modes are fixed: a new file is 0644, a file replaced keeps its permission
// bits (an executable stays executable), directories created on the way are
// 0755 — whatever the umask. Writes of one name must not run concurrently
// (they share the temporary file); strata serializes its writers of a
// repository with package lock.
package atomicfile
