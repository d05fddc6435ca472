package cli

import (
	"os"
	"runtime/debug"
)

// tuneGC trades a little memory for less garbage-collection work in a
// short-lived process: collect less often, but never let the heap pass a
// limit well under SPEC §9's 400 MB budget. GOGC and GOMEMLIMIT, when set,
// win.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(300 << 20)
	}
}
