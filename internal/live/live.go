package live

import (
	"context"

	"github.com/strata-fleet/strata/internal/render"
)

// Load is the whole of it: what the rendered output of r's fleet expects
// (Expect), what its Argo CDs hold (Read, through connect), the history of
// the fleet repository in dir (ReadHistory), joined (Join).
func Load(ctx context.Context, dir string, r *render.Renderer, connect Connect, opts Options) (*Report, error) {
	expected, err := Expect(r.Fleet, r.Owners)
	if err != nil {
		return nil, err
	}
	h, err := ReadHistory(dir)
	if err != nil {
		return nil, err
	}
	instances := Read(ctx, r.Fleet, connect, opts)
	return Join(r.Fleet, expected, instances, h), nil
}
