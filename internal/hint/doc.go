// Package hint holds the strata commands a library names for the user to
// run next ("finish it with strata promote --resume"), as data: a
// [Command] is its arguments. A library makes such a message with
// [Errorf] (an error) or [Textf] (a finding's text), whose Command
// arguments stay data until the message is printed; package cli prints
// it with [Message] and its own [Printer], which names the repository the
// user gave with --root, so that the command works when pasted where
// strata ran. Text that only mentions a command is left alone.
package hint
