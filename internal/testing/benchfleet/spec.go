package benchfleet

import (
	"fmt"
	"strconv"
)

// ClusterType is the one cluster type a generated fleet declares.
const ClusterType = "management-cluster"

// Spec is the shape of a generated fleet.
type Spec struct {
	Environments int    // top-level nodes of the sequence
	Sectors      int    // sectors per environment
	Regions      int    // regions per sector; targets = Environments*Sectors*Regions
	Components   int    // components of the cluster type, one resource each
	Seed         uint64 // seeds every random choice; same Spec, same bytes
}

// DefaultSpec is SPEC §9's bench fleet: 4 x 10 x 25 = 1,000 targets and 20
// components.
func DefaultSpec() Spec {
	return Spec{Environments: 4, Sectors: 10, Regions: 25, Components: 20, Seed: 1}
}

// Targets is the number of full-depth leaves of the sequence.
func (s Spec) Targets() int { return s.Environments * s.Sectors * s.Regions }

// RenderedFiles is the number of files a render of the fleet writes: per
// target Chart.yaml, values.yaml and one template per component.
func (s Spec) RenderedFiles() int { return s.Targets() * (2 + s.Components) }

func (s Spec) validate() error {
	for _, f := range []struct {
		name string
		n    int
	}{{"environments", s.Environments}, {"sectors", s.Sectors}, {"regions", s.Regions}, {"components", s.Components}} {
		if f.n < 1 {
			return fmt.Errorf("bench fleet spec: %s must be at least 1, got %d", f.name, f.n)
		}
	}
	if s.Targets() > 1_000_000 {
		return fmt.Errorf("bench fleet spec: %d targets is more than 1,000,000", s.Targets())
	}
	return nil
}

// Shares of the nodes of each level that get an override.yaml, per component,
// and of the components that have a rollout in progress (SPEC §9).
const (
	envOverrideShare    = 0.5
	sectorOverrideShare = 0.2
	regionOverrideShare = 0.05
	patchedShare        = 1.0 / 3
)

// share is round(n*f), at least 1.
func share(n int, f float64) int {
	k := int(float64(n)*f + 0.5)
	return max(1, min(k, n))
}

// env, sector and region are the nodes of the generated sequence.
type env struct {
	name    string
	manual  bool
	sectors []sector
}

type sector struct {
	name    string
	manual  bool
	regions []string
}

// sequence names the nodes: a real-looking environment ladder ending in
// production, sectors prefixed by their environment (production's first one
// being the canary), and GCP region names rotated per sector so that every
// sector has a different mix.
func sequence(s Spec) []env {
	names := envNames(s.Environments)
	envs := make([]env, len(names))
	k := 0
	for i, name := range names {
		e := env{name: name, manual: i > 0 && (i%2 == 1 || i == len(names)-1)}
		for j := range s.Sectors {
			sec := sector{name: sectorName(name, i, j, len(names))}
			sec.manual = e.manual && j == 0 && s.Sectors > 1
			for r := range s.Regions {
				sec.regions = append(sec.regions, regionName(k*7+r, s.Regions))
			}
			k++
			e.sectors = append(e.sectors, sec)
		}
		envs[i] = e
	}
	return envs
}

func envNames(n int) []string {
	switch n {
	case 1:
		return []string{"integration"}
	case 2:
		return []string{"integration", "production"}
	case 3:
		return []string{"integration", "stage", "production"}
	}
	names := []string{"integration", "stage", "preprod"}
	for i := 4; i < n; i++ {
		names = append(names, "env-"+strconv.Itoa(i))
	}
	return append(names, "production")
}

func sectorName(envName string, i, j, envs int) string {
	prefix := map[string]string{"integration": "int", "stage": "stage", "preprod": "preprod", "production": "prod"}[envName]
	if prefix == "" {
		prefix = envName
	}
	if i == envs-1 && envs > 1 {
		if j == 0 {
			return "prod-canary"
		}
		return "prod-sector-" + strconv.Itoa(j)
	}
	return prefix + "-sector-" + strconv.Itoa(j+1)
}

// gcpRegions is long enough for the bench fleet's 25 regions per sector.
var gcpRegions = []string{
	"us-central1", "us-east1", "us-east4", "us-east5", "us-south1", "us-west1", "us-west2",
	"us-west3", "us-west4", "northamerica-northeast1", "northamerica-northeast2",
	"southamerica-east1", "southamerica-west1", "europe-west1", "europe-west2", "europe-west3",
	"europe-west4", "europe-west6", "europe-west8", "europe-west9", "europe-west10",
	"europe-west12", "europe-north1", "europe-central2", "europe-southwest1", "asia-east1",
	"asia-east2", "asia-northeast1", "asia-northeast2", "asia-northeast3", "asia-south1",
	"asia-south2", "asia-southeast1", "asia-southeast2", "australia-southeast1",
	"australia-southeast2", "me-central1", "me-west1", "africa-south1",
}

// regionName picks the i-th region of a rotation; beyond the GCP list, names
// are numbered so that regions within one sector stay distinct.
func regionName(i, perSector int) string {
	if perSector > len(gcpRegions) {
		return fmt.Sprintf("region-%03d", i%perSector+1)
	}
	return gcpRegions[i%len(gcpRegions)]
}
