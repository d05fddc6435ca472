//go:build unix

package argosim

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// What the two delivery benchmarks (BenchmarkDelivery here, against
// argosim; BenchmarkE2EDelivery in package e2e, against real Argo CD) share:
// their knobs from the environment, strata run as a child, and the
// percentiles they report.

// EnvInt reads the positive integer the environment variable name holds,
// else def; anything else fails tb.
func EnvInt(tb testing.TB, name string, def int) int {
	tb.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		tb.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

// Usage is what a child process took: its wall time, peak RSS (wait4's
// maxrss: the largest of the process and its waited children, KiB) and
// CPU time (with its children's, strata's git commands).
type Usage struct {
	Took      time.Duration
	MaxRSS    int64
	User, Sys time.Duration
}

// String is "12.3s wall, 4.5 s user + 0.6 s sys CPU (with its git), peak
// RSS 300 MiB".
func (u Usage) String() string {
	return fmt.Sprintf("%s wall, %.1f s user + %.1f s sys CPU (with its git), peak RSS %d MiB",
		u.Took.Round(10*time.Millisecond), u.User.Seconds(), u.Sys.Seconds(), u.MaxRSS/1024)
}

// RunChild starts cmd, calls during (if set) while it runs (to read its
// output as it comes), waits for it and returns what it took, and the
// error of its run.
func RunChild(cmd *exec.Cmd, during func()) (Usage, error) {
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Usage{}, err
	}
	if during != nil {
		during()
	}
	err := cmd.Wait()
	u := Usage{Took: time.Since(start), User: cmd.ProcessState.UserTime(), Sys: cmd.ProcessState.SystemTime()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		u.MaxRSS = int64(ru.Maxrss)
	}
	return u, err
}

// Pct is the q quantile of d (sorted in place), 0 for none.
func Pct(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return d[min(len(d)-1, int(q*float64(len(d))))].Round(time.Millisecond)
}

// Dist is "p50 1s, p95 2s, max 3s (12)": d's median, 95th percentile,
// largest and count.
func Dist(d []time.Duration) string {
	return fmt.Sprintf("p50 %s, p95 %s, max %s (%d)", Pct(d, 0.5), Pct(d, 0.95), Pct(d, 1), len(d))
}
