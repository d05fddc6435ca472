package live

import (
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"os"
	"sync"

	"github.com/strata-fleet/strata/internal/atomicfile"
	"github.com/strata-fleet/strata/internal/localstate"
	"github.com/strata-fleet/strata/internal/render"
)

// ownersVersion changes when what the owners file holds, or how owners are
// found, changes: a file of another version is ignored.
const ownersVersion = 1

// ownerCache remembers the answers of render.Renderer.Owners in the local
// state of the repository (package localstate, outside it), by the render
// fingerprint of the target, which covers everything the answer depends
// on (the chart, config.yaml, the values of every component at the
// target). With a repository's own chart an answer costs a render per
// component; on the bench fleet's 1,000 targets that is most of a status
// --live that does not remember them (BENCHMARKS.md).
type ownerCache struct {
	path string
	mu   sync.Mutex
	old  map[string]map[string]render.Owner
	now  map[string]map[string]render.Owner
	miss int
}

type ownersFile struct {
	Version int                                `json:"version"`
	Targets map[string]map[string]render.Owner `json:"targets"`
}

// loadOwnerCache reads the owners file of the repository at dir; a missing
// or unreadable one is empty.
func loadOwnerCache(dir string) *ownerCache {
	c := &ownerCache{old: map[string]map[string]render.Owner{}, now: map[string]map[string]render.Owner{}}
	path, err := localstate.Path(dir, "live-owners.json")
	if err != nil {
		return c
	}
	c.path = path
	data, err := os.ReadFile(path)
	if err != nil {
		return c
	}
	var f ownersFile
	if json.Unmarshal(data, &f) == nil && f.Version == ownersVersion && f.Targets != nil {
		c.old = f.Targets
	}
	return c
}

// wrap returns owners answered from the cache where it can, by the
// fingerprint of the target (render.Renderer.Fingerprint).
func (c *ownerCache) wrap(fingerprint func(render.Target) [32]byte, owners Owners) Owners {
	return func(t render.Target) (map[string]render.Owner, error) {
		fp := fingerprint(t)
		key := hex.EncodeToString(fp[:])
		c.mu.Lock()
		own, ok := c.old[key]
		c.mu.Unlock()
		if !ok {
			var err error
			if own, err = owners(t); err != nil {
				return nil, err
			}
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		c.now[key] = own
		if !ok {
			c.miss++
		}
		return own, nil
	}
}

// save writes the answers of this run (only those: the others are of
// targets as they no longer are) when they are not what was read.
func (c *ownerCache) save() {
	if c.path == "" || c.miss == 0 && len(c.now) == len(c.old) || len(c.now) == 0 {
		return
	}
	data, err := json.Marshal(ownersFile{Version: ownersVersion, Targets: c.now})
	if err == nil {
		err = atomicfile.WriteAt(c.path, data)
	}
	if err != nil {
		slog.Warn("could not save the owners of the rendered objects; the next status --live finds them again", "path", c.path, "err", err)
	}
}
