//go:build unix

package web_test

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
	"testing"

	"github.com/strata-fleet/strata/internal/web"
)

// BenchmarkRefreshUnchanged is what a look for changes costs while nothing
// changes: the server looks every --interval, and every open page asks
// /api/generation, which looks too, every 1.5 s. Server.Refresh on bench
// fleets of $STRATA_BENCH_WEB_TARGETS targets (default "1000 10000"), with
// the process's CPU time per call (cpu-ms/op, user and system), which the
// load of a shared machine inflates less than the wall time:
//
//	TMPDIR=/dev/shm go test -run '^$' -bench BenchmarkRefreshUnchanged ./internal/web/
func BenchmarkRefreshUnchanged(b *testing.B) {
	if testing.Short() {
		b.Skip("loads bench fleets of up to 10,000 targets")
	}
	for _, n := range benchSizes(b) {
		b.Run(fmt.Sprintf("targets=%d", n), func(b *testing.B) {
			dir := benchFleet(b, n)
			root, err := os.OpenRoot(dir)
			if err != nil {
				b.Fatal(err)
			}
			defer root.Close()
			s := web.New(web.Options{Dir: dir, FS: root.FS()})
			if err := s.Err(); err != nil {
				b.Fatal(err)
			}
			runtime.GC()
			before := cpuTime()
			for b.Loop() {
				if s.Refresh() {
					b.Fatal("reloaded with nothing changed")
				}
			}
			b.ReportMetric(float64(cpuTime()-before)/1e6/float64(b.N), "cpu-ms/op")
			b.Logf("load average %s", loadAverage())
		})
	}
}

// cpuTime is the process's user and system CPU time, in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
