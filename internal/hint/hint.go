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

// Hinter is an error whose message names commands to run next: an
// *Error, or a typed error of a library (promote.GateError).
type Hinter interface{ Hints() []Command }

// Error is an error whose message names commands to run next.
type Error struct {
	Err      error
	Commands []Command
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Hints are the commands e's message names.
func (e *Error) Hints() []Command { return e.Commands }

// Wrap attaches cmds, which err's message names, to err.
func Wrap(err error, cmds ...Command) error {
	if err == nil {
		return nil
	}
	return &Error{Err: err, Commands: cmds}
}

// Commands are the commands of every Hinter in err's tree, outermost
// first.
func Commands(err error) []Command {
	var out []Command
	var walk func(error)
	walk = func(err error) {
		if err == nil {
			return
		}
		if h, ok := err.(Hinter); ok {
			out = append(out, h.Hints()...)
		}
		if u, ok := err.(interface{ Unwrap() error }); ok {
			walk(u.Unwrap())
		}
		if u, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range u.Unwrap() {
				walk(e)
			}
		}
	}
	walk(err)
	return out
}

// Rooted is msg with each of cmds that it names run against the
// repository at root ("" leaves msg as it is). A command is found where
// it stands whole: not inside a longer word or command.
func Rooted(msg, root string, cmds []Command) string {
	if root == "" {
		return msg
	}
	for _, c := range cmds {
		from, to := c.String(), c.WithRoot(root).String()
		var b strings.Builder
		for {
			i := strings.Index(msg, from)
			if i < 0 {
				b.WriteString(msg)
				break
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
		msg = b.String()
	}
	return msg
}

// word reports whether c continues a word or an argument.
func word(c byte) bool {
	return c == '-' || c == '_' || c == '/' || c == '.' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
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
