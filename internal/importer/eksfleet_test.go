package importer_test

import (
	"os"
	"testing"

	"github.com/strata-fleet/strata/internal/importer"
	"github.com/strata-fleet/strata/internal/testing/goldenfile"
)

// TestEKSFleet imports a repository shaped as
// markoskandylis/eks-fleet-management: a releases file, member files per
// cluster under the hub, the hub's ApplicationSets over the cluster
// Secrets. Each target's objects are the Applications the ApplicationSets
// give for its member's Secret, and strata render must give them back
// (importFleet).
func TestEKSFleet(t *testing.T) {
	res := importFleet(t, "eks-fleet", os.DirFS("testdata/eks-fleet/fleet"), importer.Options{Dir: "."})
	goldenfile.Check(t, "testdata/eks-fleet/fleet.golden", golden(res), *update)
}
