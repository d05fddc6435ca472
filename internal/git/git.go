package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
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
}

// Run runs git args; a failure returns an *Error with git's standard error.
func (g Exec) Run(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = g.Dir
	cmd.Env = append(os.Environ(), g.Env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return string(out), &Error{Args: args, Msg: msg, Err: err}
	}
	return string(out), nil
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
