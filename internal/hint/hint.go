package hint

import "strings"

// Command is a strata command line: its arguments after "strata".
type Command []string

// Strata is the command "strata args...".
func Strata(args ...string) Command { return Command(args) }

// String is the command as a shell reads it back.
func (c Command) String() string { return "strata " + Quote(c...) }

// WithRoot is the command run against the repository at root.
func (c Command) WithRoot(root string) Command {
	return append(Command{"--root", root}, c...)
}

// Error is an error whose message names commands to run next, as data
// (Errorf).
type Error struct {
	text    Text
	wrapped error
	// err and cmds are Wrap's: a message made before its commands were
	// known as data.
	err  error
	cmds []Command
}

func (e *Error) Error() string { return e.Text(nil) }

// Text is the message with each command it names printed by p.
func (e *Error) Text(p Printer) string {
	if e.err == nil {
		return e.text.Print(p)
	}
	msg := Message(e.err, p)
	if p == nil {
		return msg
	}
	for _, c := range e.cmds {
		msg = replaceWhole(msg, c.String(), p(c))
	}
	return msg
}

// replaceWhole is msg with from replaced by to where it stands whole: not
// inside a longer word or command.
func replaceWhole(msg, from, to string) string {
	var b strings.Builder
	for {
		i := strings.Index(msg, from)
		if i < 0 {
			b.WriteString(msg)
			return b.String()
		}
		end := i + len(from)
		whole := (i == 0 || !word(msg[i-1])) && (end == len(msg) || !word(msg[end]))
		b.WriteString(msg[:i])
		if whole {
			b.WriteString(to)
		} else {
			b.WriteString(from)
		}
		msg = msg[end:]
	}
}

// word reports whether c continues a word or an argument.
func word(c byte) bool {
	return c == '-' || c == '_' || c == '/' || c == '.' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func (e *Error) Unwrap() error {
	if e.err != nil {
		return e.err
	}
	return e.wrapped
}

// Wrap attaches cmds, which err's message names, to err.
//
// Prefer Errorf: a message made before its commands is printed by finding
// each command's text in it, where Errorf keeps them as data.
func Wrap(err error, cmds ...Command) error {
	if err == nil {
		return nil
	}
	return &Error{err: err, cmds: cmds}
}

// Quote joins args as a POSIX shell reads them back: each one as it is
// when it holds only characters the shell takes literally, else in
// single quotes.
func Quote(args ...string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=@%+,-") == "" {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}
