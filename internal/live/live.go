package live

import (
	"context"

	"github.com/strata-fleet/strata/internal/render"
)

// Load is the whole of it: what the rendered output of r's fleet expects
// (Expect, with the owners of its objects remembered in the local state of
// the repository in dir, ownerCache), what its Argo CDs hold (Read, through
// connect), the history of the repository (ReadHistory), joined (Join).
func Load(ctx context.Context, dir string, r *render.Renderer, connect Connect, opts Options) (*Report, error) {
	cache := loadOwnerCache(dir)
	expected, err := Expect(r.Fleet, cache.wrap(r.Fingerprint, r.Owners))
	if err != nil {
		return nil, err
	}
	cache.save()
	h, err := ReadHistory(dir, r.Fleet.Config.OutputRoot())
	if err != nil {
		return nil, err
	}
	instances := Read(ctx, r.Fleet, connect, opts)
	return Join(r.Fleet, expected, instances, h), nil
}
