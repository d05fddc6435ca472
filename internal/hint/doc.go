// Package hint holds the strata commands a library's error names for the
// user to run next ("finish it with strata promote --resume"), as data:
// a [Command] is its arguments, and [Wrap] attaches the commands to the
// error whose message names them (a verify finding carries its own).
// Package cli, which prints the error, a warning or a finding,
// finds them ([Commands]) and names each run against the repository the
// user gave with --root ([Rooted]), so that it works when pasted where
// strata ran; text that only mentions a command is left alone.
package hint
