package status_test

import (
	"os"
	"strconv"
	"testing"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/status"
	"github.com/strata-fleet/strata/internal/testing/benchfleet"
)

// BenchmarkCompute computes the status of SPEC §9's bench fleet (under
// -short a small one; STRATA_BENCH_REGIONS sets the regions per sector, 250
// for 10,000 targets).
func BenchmarkCompute(b *testing.B) {
	spec := benchfleet.DefaultSpec()
	if testing.Short() {
		spec.Sectors, spec.Regions = 2, 5
	}
	if n, err := strconv.Atoi(os.Getenv("STRATA_BENCH_REGIONS")); err == nil {
		spec.Regions = n
	}
	dir := b.TempDir()
	if err := benchfleet.Write(dir, spec); err != nil {
		b.Fatal(err)
	}
	f, err := fleet.Load(os.DirFS(dir))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := status.Compute(f); err != nil {
			b.Fatal(err)
		}
	}
}
