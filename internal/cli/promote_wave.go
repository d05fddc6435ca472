package cli

import (
	"fmt"
	"io"

	"github.com/strata-fleet/strata/internal/promote"
)

// printWave says, after the first node of a promotion sized by rollout
// waves:, the other nodes of its wave and where the wave stands.
func printWave(w io.Writer, prefix string, wave *promote.Wave) {
	if wave == nil {
		return
	}
	for i, n := range wave.Nodes[1:] {
		fmt.Fprintf(w, "%spromoted to %s: %s\n", prefix, n, wave.Files[i+1])
	}
	fmt.Fprintf(w, "wave %d of %d of %s: %d of its %d nodes have the patch\n", wave.Number, wave.Of, wave.Group, wave.Entered, wave.Total)
}
