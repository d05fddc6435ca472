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

// strata's exit codes, each explained in docs/exit-codes.md.
const (
	exitOK       = 0 // done; a check found nothing
	exitFindings = 1 // a check found something; a rollout step failed
	exitUsage    = 2 // the command line is wrong
	exitConfig   = 3 // the fleet repository is wrong or missing
	exitGate     = 4 // stopped at a manual gate (or a freeze) not approved
	exitFailure  = 5 // anything else
	exitPending  = 6 // rollout --once stopped at a wait that is not over
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
