package render_test

import (
	"maps"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/strata-fleet/strata/internal/render"
)

// A target's fingerprint covers the inventory files of its clusters when
// their facts are values (clusters: {facts: true}), and only then: a
// changed label re-renders the targets its cluster runs, no other.
func TestFingerprintCoversClusterFactsOnlyWithFacts(t *testing.T) {
	for _, facts := range []bool{true, false} {
		files := maps.Clone(clusterFactsFleet)
		if !facts {
			files["config/config.yaml"] = strings.Replace(files["config/config.yaml"], "clusters: {facts: true}\n", "", 1)
		}
		before := fingerprints(t, files)
		files["config/clusters/prod-01.yaml"] = strings.Replace(files["config/clusters/prod-01.yaml"], "silver", "bronze", 1)
		after := fingerprints(t, files)
		for id, fp := range before {
			changed := after[id] != fp
			want := facts && id == "hub/prod/eu-west1"
			if changed != want {
				t.Errorf("facts %v: %s's fingerprint changed: %v, want %v", facts, id, changed, want)
			}
		}
	}
}

func fingerprints(t *testing.T, files map[string]string) map[string][32]byte {
	t.Helper()
	fsys := fstest.MapFS{}
	for p, c := range files {
		fsys[p] = &fstest.MapFile{Data: []byte(c)}
	}
	r, err := render.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][32]byte{}
	for _, tg := range r.Targets() {
		out[tg.ID()] = r.Fingerprint(tg)
	}
	if len(out) != 2 {
		t.Fatalf("%d targets, want 2", len(out))
	}
	return out
}
