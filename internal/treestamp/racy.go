package treestamp

import (
	"math"
	"time"
)

// NoClock is the clock when it could not be read: every stamp is racy.
const NoClock = math.MinInt64

// coarsest is the coarsest tick of a file system's clock (FAT keeps even
// seconds). A time further past the clock than that was set (a
// modification time, with touch), not stamped by a change, and a change
// would move it.
const coarsest = int64(2 * time.Second)

// Racy reports whether a change to s's file after the clock read clock
// could keep its stamp: its change time (Changed) is not before the clock
// as the file system keeps time. A change is stamped with the file
// system's clock, truncated to its granularity (1 ns to 2 s), so a stamp's
// time is a multiple of it: the clock is truncated to the coarsest
// granularity the stamp's time is a multiple of (grain), which is a no-op
// for a clock read from the file system and makes a clock read from the
// kernel (Now) what the file system would stamp.
func (s Stamp) Racy(clock int64) bool {
	if clock == NoClock {
		return true
	}
	t := s.Changed()
	g := grain(t)
	return t >= clock-clock%g && t-clock < coarsest
}

// grain is the coarsest granularity t can have been truncated to: the
// largest power of ten of nanoseconds up to a second that divides it, or
// two seconds. File systems keep times to such steps (ext4 and xfs 1 ns,
// NTFS 100 ns, exFAT 10 ms, ext3 1 s, FAT 2 s); a time that is such a
// multiple by chance only makes its stamp racy for longer.
func grain(t int64) int64 {
	if t%coarsest == 0 {
		return coarsest
	}
	g := int64(1)
	for g < int64(time.Second) && t%(g*10) == 0 {
		g *= 10
	}
	return g
}
