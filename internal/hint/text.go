package hint

import (
	"errors"
	"fmt"
	"strings"
)

// Printer prints a command for the user to run next. The CLI's names the
// repository it was given with --root; nil prints Command.String.
type Printer func(Command) string

func (p Printer) print(c Command) string {
	if p == nil {
		return c.String()
	}
	return p(c)
}

// Texter is an error (or a finding) whose message names commands to run
// next, kept as data until it is printed: Text(nil) is its message as
// Error says it, Text(p) the same with each command printed by p.
type Texter interface{ Text(p Printer) string }

// Text is a message with commands in it, kept as its format and
// arguments: the arguments that are Commands are printed when the
// message is (Print), by whoever prints it.
type Text struct {
	format string
	args   []any
}

// Textf is the message fmt.Sprintf(format, args...) would make, its
// Command arguments (printed with %s) kept as data.
func Textf(format string, args ...any) Text { return Text{format: format, args: args} }

// String is the message with each command as Command.String prints it.
func (t Text) String() string { return t.Print(nil) }

// Print is the message with each command printed by p, and each error
// argument as Message prints it with p.
func (t Text) Print(p Printer) string {
	if t.format == "" {
		return ""
	}
	args := make([]any, len(t.args))
	for i, a := range t.args {
		switch a := a.(type) {
		case Command:
			args[i] = p.print(a)
		case error:
			args[i] = Message(a, p)
		default:
			args[i] = a
		}
	}
	return fmt.Sprintf(strings.ReplaceAll(t.format, "%w", "%v"), args...)
}

// Commands are the commands the message names.
func (t Text) Commands() []Command {
	var out []Command
	for _, a := range t.args {
		if c, ok := a.(Command); ok {
			out = append(out, c)
		}
	}
	return out
}

// Errorf is fmt.Errorf whose Command arguments stay data: its message
// prints them through the caller's Printer (Message), and it wraps its
// %w argument as fmt.Errorf does.
func Errorf(format string, args ...any) error {
	return &Error{text: Textf(format, args...), wrapped: errors.Unwrap(fmt.Errorf(format, args...))}
}

// Message is err's message with the commands it names printed by p: an
// error of Errorf (any Texter) prints itself; an error that wraps others
// (fmt.Errorf's %w, errors.Join) keeps each one's message verbatim in its
// own, and that part is printed again with p. A message that names no
// command as data is its Error.
func Message(err error, p Printer) string {
	if err == nil {
		return ""
	}
	if t, ok := err.(Texter); ok {
		return t.Text(p)
	}
	msg := err.Error()
	var inner []error
	switch u := err.(type) { //nolint:errorlint // the error's own Unwrap, one level: errors.As would look deeper
	case interface{ Unwrap() error }:
		if e := u.Unwrap(); e != nil {
			inner = []error{e}
		}
	case interface{ Unwrap() []error }:
		inner = u.Unwrap()
	}
	for _, e := range inner {
		plain := e.Error()
		printed := Message(e, p)
		if printed == plain {
			continue
		}
		if i := strings.LastIndex(msg, plain); i >= 0 {
			msg = msg[:i] + printed + msg[i+len(plain):]
		}
	}
	return msg
}
