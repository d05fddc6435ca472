package yamledit_test

import "flag"

// The package has no golden files; it accepts -update so that
// go test ./... -update (make golden) runs it.
var _ = flag.Bool("update", false, "no effect: this package has no golden files")
