package fleet_test

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/fleet"
)

func TestWaveEnds(t *testing.T) {
	count := func(n int) fleet.Amount { return fleet.Amount{N: n} }
	pct := func(n int) fleet.Amount { return fleet.Amount{N: n, Percent: true} }
	tests := []struct {
		name  string
		waves fleet.Waves
		n     int
		want  []int
	}{
		{"the issue's example over 160 regions", fleet.Waves{count(1), count(5), pct(25), pct(100)}, 160, []int{1, 6, 46, 160}},
		{"a percentage rounds up", fleet.Waves{pct(25), pct(100)}, 10, []int{3, 10}},
		{"a small percentage is at least one node", fleet.Waves{pct(1), pct(100)}, 10, []int{1, 10}},
		{"the last wave completes the group", fleet.Waves{count(1), count(2)}, 10, []int{1, 10}},
		{"a single wave is the whole group", fleet.Waves{count(1)}, 4, []int{4}},
		{"waves the group does not need are left out", fleet.Waves{count(2), count(5), pct(50), pct(100)}, 4, []int{2, 4}},
		{"a count larger than what is left takes the rest", fleet.Waves{count(1), count(40), count(1)}, 5, []int{1, 5}},
		{"percentages are of the whole group, not of what is left", fleet.Waves{pct(50), pct(50), pct(50)}, 4, []int{2, 4}},
		{"no waves: one node per step", nil, 3, []int{1, 2, 3}},
		{"an empty group has no wave", fleet.Waves{count(1)}, 0, nil},
		{"a huge count does not overflow", fleet.Waves{count(1), count(math.MaxInt), count(1)}, 5, []int{1, 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, tt.waves.Ends(tt.n)); d != "" {
				t.Errorf("Ends(%d) (-want +got):\n%s", tt.n, d)
			}
		})
	}
}

func TestBudgetAllowed(t *testing.T) {
	tests := []struct {
		a     fleet.Amount
		total int
		want  int
	}{
		{fleet.Amount{N: 2}, 40, 2},
		{fleet.Amount{N: 2}, 1, 2},
		{fleet.Amount{N: 10, Percent: true}, 15, 1}, // rounded down
		{fleet.Amount{N: 10, Percent: true}, 9, 0},
		{fleet.Amount{N: 100, Percent: true}, 7, 7},
		{fleet.Amount{}, 7, 0},
	}
	for _, tt := range tests {
		if got := tt.a.Allowed(tt.total); got != tt.want {
			t.Errorf("%s of %d: %d, want %d", tt.a, tt.total, got, tt.want)
		}
	}
}

// wavesConfig sets waves at the top level, on production, and turns them
// off on one sector; a budget on production and on one sector.
const wavesConfig = `dimensions: [environments, sectors, regions]
rollout:
  waves: [1, 100%]
sequence:
  environments:
    - name: integration
      sectors:
        - name: s1
          regions: [a, b, c]
    - name: production
      rollout: {waves: [1, 5, 25%, 100%], maxUnhealthy: 10%}
      sectors:
        - name: eu
          rollout: {maxUnhealthy: 2}
          regions: [a, b]
        - name: us
          rollout: {waves: []}
          regions: [a, b]
        - name: ap
          rollout:
            waves: [50%, 100%]
          regions: [a, b]
cluster_types: [workload]
`

func TestWavesAt(t *testing.T) {
	f, err := fleet.Load(fleetFS(wavesConfig, nil))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		node      string
		group     string // "" for none
		waves     string
		maxUnheal string
	}{
		{"integration/s1/a", "integration", "[1 100%]", "0"},
		{"integration/s1", "integration", "[1 100%]", "0"},
		{"production/eu/b", "production", "[1 5 25% 100%]", "2"},
		{"production/us/a", "", "[]", "10%"},
		{"production/ap/a", "production/ap", "[50% 100%]", "10%"},
		{"production", "production", "[1 5 25% 100%]", "10%"},
	}
	for _, tt := range tests {
		t.Run(tt.node, func(t *testing.T) {
			n := f.Config.Find(strings.Split(tt.node, "/"))
			g, ok := f.Config.WavesAt(n)
			got, waves := "", "[]"
			if ok {
				got = g.Node.ID()
				var s []string
				for _, w := range g.Waves {
					s = append(s, w.String())
				}
				waves = "[" + strings.Join(s, " ") + "]"
			}
			if got != tt.group || waves != tt.waves {
				t.Errorf("WavesAt(%s) = %q %s, want %q %s", tt.node, got, waves, tt.group, tt.waves)
			}
			if b := f.Config.RolloutAt(n).MaxUnhealthy.String(); b != tt.maxUnheal {
				t.Errorf("RolloutAt(%s).MaxUnhealthy = %s, want %s", tt.node, b, tt.maxUnheal)
			}
		})
	}
}

func TestWavesErrors(t *testing.T) {
	tests := []struct {
		name, old, new string
		want           []string
	}{
		{"a wave of no node", "[1, 100%]", "[0, 100%]",
			[]string{"rollout.waves.0: 0 is not a count of at least 1", "config/config.yaml:3:11", "waves: [1, 5, 25%, 100%]"}},
		{"a percentage over 100", "[50%, 100%]", "[50%, 150%]",
			[]string{`sequence.environments.1.sectors.2.rollout.waves.1: "150%" is not a percentage from 1% to 100%`, "config/config.yaml:21:26"}},
		{"a percentage without its sign", "[1, 100%]", "[1, '100']",
			[]string{`rollout.waves.1: "100" is neither a count nor a percentage`, "config/config.yaml:3:"}},
		{"a fraction", "[1, 100%]", "[1.5, 100%]",
			[]string{"rollout.waves.0: expected a count or a percentage, got 1.5"}},
		{"100% first, the issue's example", "[1, 100%]", "[100%, 1]",
			[]string{"rollout.waves.1: a wave after 100% (line 3) would never run", "config/config.yaml:3:"}},
		{"counts that shrink", "[1, 5, 25%, 100%]", "[5, 1, 25%, 100%]",
			[]string{"sequence.environments.1.rollout.waves.1: 1 is smaller than the wave of 5 before it", "config/config.yaml:"}},
		{"percentages that shrink", "[50%, 100%]", "[50%, 25%, 100%]",
			[]string{`waves.1: 25% is smaller than the wave of 50% before it`}},
		{"a last wave that is no 100%", "[1, 5, 25%, 100%]", "[1, 5, 25%]",
			[]string{"sequence.environments.1.rollout.waves.2: the last wave is 25%, not 100%", "waves: [1, 5, 25%, 100%]"}},
		{"a single count", "[1, 100%]", "[40]",
			[]string{"rollout.waves.0: the last wave is 40, not 100%"}},
		{"waves that are no list", "waves: [1, 100%]", "waves: 1",
			[]string{"rollout.waves: expected a list", "config/config.yaml:3:10"}},
		{"a negative budget", "maxUnhealthy: 2", "maxUnhealthy: -1",
			[]string{"sectors.0.rollout.maxUnhealthy: -1 is not a count of at least 0", "config/config.yaml:14:35"}},
		{"a budget over 100%", "maxUnhealthy: 10%", "maxUnhealthy: 101%",
			[]string{`environments.1.rollout.maxUnhealthy: "101%" is not a percentage from 0% to 100%`}},
		{"a misspelled key", "maxUnhealthy: 2", "maxUnhealty: 2",
			[]string{"rollout.maxUnhealty: unknown key", `did you mean "maxUnhealthy"?`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			config := strings.Replace(wavesConfig, tt.old, tt.new, 1)
			if config == wavesConfig {
				t.Fatalf("%q is not in the config", tt.old)
			}
			_, err := fleet.Load(fleetFS(config, nil))
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not contain %q", msg, w)
				}
			}
		})
	}
}
