package treestamp

import "golang.org/x/sys/unix"

// Now reads, without writing anything, a clock no later than the file
// system's: the kernel's coarse real-time clock, which Linux stamps a
// change with (its multigrain timestamps are no earlier), before
// truncating it to the file system's granularity (see Racy). A network
// file system stamped by another machine's clock is not covered.
func Now() int64 {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_REALTIME_COARSE, &ts) != nil {
		return NoClock
	}
	return ts.Nano()
}
