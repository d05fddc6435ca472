package rollout

import "github.com/strata-fleet/strata/internal/hint"

// ShellQuote joins args as a POSIX shell reads them back (hint.Quote), for
// the commands other packages print to be pasted.
func ShellQuote(args ...string) string { return hint.Quote(args...) }
