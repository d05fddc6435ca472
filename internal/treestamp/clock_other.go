//go:build !linux

package treestamp

import "time"

// lag is how far behind the system's time a kernel's coarse clock, which
// may stamp changes, can be: a tick of 100 Hz, twice.
const lag = int64(20 * time.Millisecond)

// Now reads, without writing anything, a clock no later than the file
// system's: the system's time less a coarse kernel clock's lag.
func Now() int64 { return time.Now().UnixNano() - lag }
