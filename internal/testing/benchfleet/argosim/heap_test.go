//go:build linux

package argosim_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/strata-fleet/strata/internal/testing/benchfleet/argosim"
)

// watchMemory, when STRATA_BENCH_HEAP_DIR names a directory, records the
// rollout's memory there every STRATA_BENCH_HEAP_EVERY_S seconds (180) until
// ctx ends: a line of mem.txt each time (the rollout's RSS; in process also
// the heap in use, the collector's goal and what Go holds from the system)
// and, in process, a heap profile (heap-MMmSSs.pprof, `go tool pprof
// -sample_index=inuse_space`). pid is the child's, 0 in process.
func watchMemory(ctx context.Context, b *testing.B, pid int) {
	dir := os.Getenv("STRATA_BENCH_HEAP_DIR")
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	every := time.Duration(argosim.EnvInt(b, "STRATA_BENCH_HEAP_EVERY_S", 180)) * time.Second
	status := "/proc/self/status"
	if pid != 0 {
		status = fmt.Sprintf("/proc/%d/status", pid)
	}
	start := time.Now()
	go func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			at := time.Since(start).Round(time.Second)
			line := fmt.Sprintf("%s rss %s", at, procField(status, "VmRSS:"))
			if pid == 0 {
				line += heapLine()
				name := fmt.Sprintf("heap-%02dm%02ds.pprof", int(at.Minutes()), int(at.Seconds())%60)
				if f, err := os.Create(filepath.Join(dir, name)); err == nil {
					_ = pprof.WriteHeapProfile(f)
					_ = f.Close()
				}
			}
			if f, err := os.OpenFile(filepath.Join(dir, "mem.txt"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
				fmt.Fprintln(f, line)
				_ = f.Close()
			}
		}
	}()
}

// heapLine is this process's heap in use, its collector's goal, and all
// the memory Go mapped and did not release, MiB.
func heapLine() string {
	names := []string{"/memory/classes/heap/objects:bytes", "/gc/heap/goal:bytes", "/memory/classes/total:bytes",
		"/memory/classes/heap/released:bytes", "/memory/classes/heap/free:bytes", "/memory/classes/heap/unused:bytes"}
	s := make([]metrics.Sample, len(names))
	for i, n := range names {
		s[i].Name = n
	}
	metrics.Read(s)
	var b strings.Builder
	for _, x := range s {
		fmt.Fprintf(&b, "; %s %d MiB", strings.TrimSuffix(strings.TrimPrefix(x.Name, "/"), ":bytes"), x.Value.Uint64()>>20)
	}
	return b.String()
}

// procField is the value of a line of a /proc status file, "" if none.
func procField(path, field string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			return strings.TrimSpace(rest)
		}
	}
	return ""
}
