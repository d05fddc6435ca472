package treestamp

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A stamp whose change time is not before the clock, as the file system
// keeps time, is racy: a change in that tick could keep it. Where the
// system records no change time, the modification time counts, and one set
// more than 2s ahead is not racy.
func TestRacy(t *testing.T) {
	const (
		clock = 1_700_000_012_345_678_901 // a clock read from the kernel
		s     = int64(time.Second)
	)
	for _, tc := range []struct {
		name  string
		s     Stamp
		clock int64
		want  bool
	}{
		{"changed before the clock", Stamp{CTime: clock - 2, MTime: clock + 5000}, clock, false},
		{"changed at the clock", Stamp{CTime: clock}, clock, true},
		{"changed after the clock", Stamp{CTime: clock + 1}, clock, true},
		{"a clock read from the file system, at its stamp", Stamp{CTime: 1000}, 1000, true},
		{"a clock read from the file system, past its stamp", Stamp{CTime: 999}, 1000, false},
		{"no change time, modified before", Stamp{MTime: clock - 2}, clock, false},
		{"no change time, modified at the clock", Stamp{MTime: clock}, clock, true},
		{"no change time, modified 3s ahead", Stamp{MTime: clock + 3*s}, clock, false},
		{"whole seconds, in the clock's second", Stamp{CTime: clock / s * s}, clock, true},
		{"whole seconds, the second before", Stamp{CTime: (clock/s - 1) * s}, clock, false},
		{"even seconds, in the clock's two", Stamp{CTime: clock / s * s}, clock + s, true},
		{"even seconds, the two before", Stamp{CTime: (clock/s - 2) * s}, clock + s, false},
		{"10ms steps, in the clock's", Stamp{CTime: clock / 1e7 * 1e7}, clock, true},
		{"10ms steps, the one before", Stamp{CTime: (clock/1e7 - 1) * 1e7}, clock, false},
		{"100ns steps, in the clock's", Stamp{CTime: clock / 100 * 100}, clock, true},
		{"no clock", Stamp{CTime: -1 << 62}, NoClock, true},
		{"no clock, a time far ahead", Stamp{CTime: 1 << 62}, NoClock, true},
	} {
		if got := tc.s.Racy(tc.clock); got != tc.want {
			t.Errorf("%s: racy = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Any change made after Now was read is racy against it: Now is no later
// than the time the file system stamps a change with, both for a new file
// (the kernel's coarse clock) and for a file edited after it was looked at
// (Linux's multigrain timestamps give it a fine-grained time).
func TestChangeAfterNowIsRacy(t *testing.T) {
	dir := t.TempDir()
	edited := filepath.Join(dir, "edited")
	for i := range 200 {
		if i%2 == 0 {
			if _, err := os.Lstat(edited); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
		}
		clock := Now()
		p := filepath.Join(dir, fmt.Sprint(i))
		if i%2 == 1 {
			p = edited
		}
		if err := os.WriteFile(p, []byte{byte(i)}, 0o644); err != nil {
			t.Fatal(err)
		}
		info, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		if s := Of(p, info); !s.Racy(clock) {
			t.Fatalf("change %d: the stamp (changed %d) is not racy against the clock read before it (%d)", i, s.Changed(), clock)
		}
	}
}

func TestGrain(t *testing.T) {
	for _, tc := range []struct{ t, want int64 }{
		{1_700_000_012_345_678_901, 1},
		{1_700_000_012_345_678_900, 100},
		{1_700_000_012_340_000_000, 1e7},
		{1_700_000_013_000_000_000, 1e9},
		{1_700_000_012_000_000_000, 2e9},
		{0, 2e9},
	} {
		if got := grain(tc.t); got != tc.want {
			t.Errorf("grain(%d) = %d, want %d", tc.t, got, tc.want)
		}
	}
}
