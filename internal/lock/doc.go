// Package lock serializes the commands that write a repository: render,
// promote, pin, and whatever drives them. One process at a time holds a
// repository's lock.
//
// Acquire takes it: the lock is a file in the repository's local state
// (package localstate), outside the working tree, so it never shows in git
// status and a repository cannot bring its own. It is held with the
// operating system's advisory file lock (flock on Unix, LockFileEx on
// Windows), which the kernel releases when the holder exits in any way,
// kill -9 included: a lock left by a dead process is taken over by the next
// Acquire with nothing to clean up. The holder writes who it is (process
// id, host, command line, since when) into the file; a second process waits
// up to Options.Wait for it to finish and otherwise fails with a *HeldError
// that names the holder.
//
// Commands that only compare the repository with its output (render
// --check) take the lock shared (Options.Shared): they run beside each other
// but never beside a writer, so they never see a half-switched rendered/.
//
// Hold the lock from before reading the configuration until the last write:
// a run that read older configuration then cannot write after one that
// read newer configuration.
package lock
