package validate

import (
	"crypto/sha256"
	"os"
	"testing"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/render"
)

func TestProf(t *testing.T) {
	fsys := os.DirFS("/tmp/bench")
	f, _ := fleet.Load(fsys)
	ch, _ := render.LoadChart(fsys)
	r := &render.Renderer{Fleet: f, Chart: ch}
	outs, _ := r.RenderAll(r.Targets(), nil)
	seen := map[[32]byte]bool{}
	n := 0
	for _, o := range outs {
		for _, f := range o.Files {
			n++
			seen[sha256.Sum256(f.Data)] = true
		}
	}
	t.Log(n, len(seen))
}
