package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/strata-fleet/strata/internal/action"
	"github.com/strata-fleet/strata/internal/freeze"
	"github.com/strata-fleet/strata/internal/pin"
	"github.com/strata-fleet/strata/internal/promote"
	"github.com/strata-fleet/strata/internal/rollout"
	"github.com/strata-fleet/strata/internal/suggest"
	"github.com/strata-fleet/strata/internal/values"
)

// strata's exit codes, documented in docs/exit-codes.md and README: a
// script tells a check that found something from a command that could not
// run.
const (
	// exitOK: the command did what it was asked; a check found nothing.
	exitOK = 0
	// exitFindings: a check ran and found something: rendered/ out of
	// date (render --check), validation errors, a diff (diff
	// --exit-code), a rule broken (verify), a rollout stopped by a failed
	// step.
	exitFindings = 1
	// exitUsage: the command line is wrong: an unknown command or flag,
	// a wrong number of arguments, a flag value or combination refused, a
	// name the fleet does not have (a target, cluster type, component,
	// node or cluster: suggest.UnknownError).
	exitUsage = 2
	// exitConfig: the fleet repository is wrong or missing: an error that
	// names a file and line (malformed YAML, an unknown key or target, a
	// template error), or no config/config.yaml.
	exitConfig = 3
	// exitGate: rollout, promote or pin stopped at a manual gate the run
	// did not approve (promote.GateError, pin.GateError), or promote
	// refused a step into a frozen node (freeze.FrozenError): nothing failed,
	// but the change is not made; it waits for an approval (a CI job tells
	// it from done, 0, and from a failure).
	exitGate = 4
	// exitFailure: anything else: Git, a cluster, the file system, the
	// repository lock held by another command.
	exitFailure = 5
	// exitPending: rollout --once stopped at a wait that is not over (a
	// step syncing or soaking, held by a freeze or stopWhen): nothing
	// failed and nobody needs to act; the next run goes on. Apart from 4
	// (a human must approve) and 0 (done), so that a scheduled job can
	// tell the three apart.
	exitPending = 6
)

// usageError is a command line strata refuses (exit 2).
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usageErrorf returns a usage error (exit 2).
func usageErrorf(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// configError is a fleet repository strata cannot use that no file and line
// name (none there at all) (exit 3).
type configError struct{ err error }

func (e *configError) Error() string { return e.err.Error() }
func (e *configError) Unwrap() error { return e.err }

// exitCode is the exit code of a command that failed with err.
func exitCode(err error) int {
	var ex *exitError
	var ue *usageError
	var aue *action.UsageError // a verb refused until the command line changes
	var ce *configError
	var ve *values.Error
	var se *rollout.StepError
	var un *suggest.UnknownError
	var ge *promote.GateError
	var pe *pin.GateError
	var fe *freeze.FrozenError
	var gap *promote.GapError
	var unr *action.UnrenderedError
	var all *patchErrors // before exitError: it holds one per patch
	switch {
	case errors.As(err, &all):
		return all.code
	case errors.As(err, &ex):
		return ex.code
	case errors.As(err, &se):
		return exitFindings
	case errors.As(err, &ge), errors.As(err, &pe), errors.As(err, &fe):
		return exitGate
	case errors.As(err, &ue), errors.As(err, &aue), errors.As(err, &un), cobraUsage(err):
		return exitUsage
	case errors.As(err, &ce), errors.As(err, &ve), errors.As(err, &gap), errors.As(err, &unr):
		return exitConfig
	}
	return exitFailure
}

// cobraUsage reports whether err is one of the usage errors cobra returns
// untyped, by their wording: an unknown command, a required flag missing.
func cobraUsage(err error) bool {
	msg := err.Error()
	return strings.HasPrefix(msg, "unknown command ") || strings.HasPrefix(msg, "required flag(s) ")
}

// markUsageErrors makes cobra's own errors (unknown flags, wrong arguments,
// unknown commands) usage errors, on cmd and every command below it.
func markUsageErrors(cmd *cobra.Command) {
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return withUsage(c, err) })
	if args := cmd.Args; args != nil {
		cmd.Args = func(c *cobra.Command, a []string) error {
			if err := args(c, a); err != nil {
				return withUsage(c, err)
			}
			return nil
		}
	}
	for _, c := range cmd.Commands() {
		markUsageErrors(c)
	}
}

// withUsage is a usage error (exit 2) that ends with the command's usage
// line, so that a missing argument names the arguments the command takes.
func withUsage(c *cobra.Command, err error) error {
	return &usageError{fmt.Errorf("%w\nusage: %s", err, c.UseLine())}
}
