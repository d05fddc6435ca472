package git

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Runner runs git with args and returns its standard output.
type Runner interface {
	Run(ctx context.Context, args ...string) (string, error)
}

// Exec runs the git program in Dir.
type Exec struct {
	Dir string
	// Env is added to the environment (tests set the author).
	Env []string
	// NetTimeout bounds each git command that talks to a remote (fetch,
	// push, ls-remote, pull, clone): DefaultNetTimeout when zero; a
	// deadline of the caller's context that comes sooner wins. A remote
	// that accepts the connection and never answers holds none longer.
	NetTimeout time.Duration
}

// DefaultNetTimeout is how long a git command that talks to a remote may
// take when the command running it states no timeout of its own.
const DefaultNetTimeout = 2 * time.Minute

// Run runs git args; a failure returns an *Error with git's standard error.
// git runs in a process group of its own, killed whole when ctx ends (or
// a remote's NetTimeout passes): the helpers git starts for a remote (ssh,
// git-remote-https, an upload-pack) go with it.
func (g Exec) Run(ctx context.Context, args ...string) (string, error) {
	var limit time.Duration
	if networked(args) {
		limit = cmp.Or(g.NetTimeout, DefaultNetTimeout)
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, limit, errNetTimeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = g.Dir
	cmd.Env = append(os.Environ(), g.Env...)
	killGroup(cmd)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		if errors.Is(context.Cause(ctx), errNetTimeout) {
			msg = fmt.Sprintf("no answer from the remote within %s: stopped (a command that reaches a remote runs under the "+
				"command's --timeout, else %s)", limit, DefaultNetTimeout)
			err = context.Cause(ctx)
		}
		return string(out), &Error{Args: args, Msg: msg, Err: err}
	}
	return string(out), nil
}

// errNetTimeout is the cause of a remote's NetTimeout passing.
var errNetTimeout = errors.New("the remote did not answer in time")

// networked reports whether git args talks to a remote.
func networked(args []string) bool {
	switch Subcommand(args) {
	case "fetch", "push", "ls-remote", "pull", "clone":
		return true
	}
	return false
}

// Subcommand is the git subcommand of args, after git's own options (-c
// settings, -C and the like); "" when there is none.
func Subcommand(args []string) string {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-c" || a == "-C":
			i++ // its value
		case strings.HasPrefix(a, "-"):
		default:
			return a
		}
	}
	return ""
}

// Error is a git command that failed.
type Error struct {
	Args []string
	Msg  string
	Err  error
}

func (e *Error) Error() string { return fmt.Sprintf("git %s: %s", strings.Join(e.Args, " "), e.Msg) }
func (e *Error) Unwrap() error { return e.Err }

// Output runs git -C dir args with stdin (nil for none) and returns its
// standard output. Its error is the first line of git's error output
// without "fatal: ", for callers that put it after their own context
// ("resolving v1.2: unknown revision ..."); a git that could not be run
// says so.
func Output(dir string, stdin io.Reader, args ...string) (string, error) {
	var out, errb bytes.Buffer
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &out, &errb
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return "", fmt.Errorf("running git: %w", err)
		}
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		line, _, _ := strings.Cut(msg, "\n")
		return "", errors.New(strings.TrimPrefix(line, "fatal: "))
	}
	return out.String(), nil
}
