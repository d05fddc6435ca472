// Command strata runs a fleet of Kubernetes clusters with Argo CD from one Git
// repository. See internal/cli for the commands.
//
// STRATA_CPUPROFILE=FILE writes a CPU profile of the run to FILE, and
// STRATA_HEAPPROFILE=DIR a heap profile into DIR each time the heap in use
// passes its highest yet by a tenth, for `go tool pprof` (CONTRIBUTING.md,
// "Profiling"). In a container with a memory limit, Go's soft memory limit
// is set to nine tenths of it unless GOMEMLIMIT is (memlimit.go).
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime/metrics"
	"runtime/pprof"
	"time"

	"github.com/strata-fleet/strata/internal/cli"
)

func main() {
	containerMemoryLimit()
	stop := profile(os.Getenv("STRATA_CPUPROFILE"))
	heapProfiles(os.Getenv("STRATA_HEAPPROFILE"))
	code := cli.Main(os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// profile starts a CPU profile into file, when it is set, and returns what
// stops it.
func profile(file string) (stop func()) {
	if file == "" {
		return func() {}
	}
	f, err := os.Create(file)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "strata: STRATA_CPUPROFILE: %v\n", err)
		os.Exit(2)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "strata: STRATA_CPUPROFILE: %v\n", err)
		}
	}
}

// heapProfiles, when dir is set, looks at the heap in use every 100 ms and
// writes a heap profile into dir (heap-<seconds since start>s-<MiB>.pprof)
// each time it is a tenth above the highest profiled: the last file is the
// peak's. A peak is what a memory budget is about, and an interval's
// profiles miss it.
func heapProfiles(dir string) {
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(os.Stderr, "strata: STRATA_HEAPPROFILE: %v\n", err)
		os.Exit(2)
	}
	start := time.Now()
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var high uint64
		for range time.Tick(100 * time.Millisecond) {
			metrics.Read(s)
			inUse := s[0].Value.Uint64()
			if inUse < high+high/10 {
				continue
			}
			high = inUse
			name := fmt.Sprintf("heap-%04.0fs-%05dMiB.pprof", time.Since(start).Seconds(), inUse>>20)
			if f, err := os.Create(filepath.Join(dir, name)); err == nil {
				_ = pprof.WriteHeapProfile(f)
				_ = f.Close()
			}
		}
	}()
}
