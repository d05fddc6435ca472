//go:build linux

package argosim_test

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/output"
	"github.com/strata-fleet/strata/internal/testing/benchfleet/argosim"
)

// writeFleet writes the delivery fleet: one hub, clusters spokes split
// into dev (a tenth), staging (three tenths) and prod, one region each,
// and components c000... each making one Application per spoke, named
// after the spoke's region.
func writeFleet(b testing.TB, dir string, clusters, components int) []argosim.Spoke {
	dev := max(1, clusters/10)
	staging := max(1, clusters*3/10)
	prod := max(1, clusters-dev-staging)
	regions := func(prefix string, n int) []string {
		var out []string
		for i := range n {
			out = append(out, fmt.Sprintf("%s%04d", prefix, i))
		}
		return out
	}
	stages := []struct {
		name, waves string
		regions     []string
	}{
		{"dev", "", append(regions("d", dev), "hub")},
		{"staging", "[10%, 100%]", regions("s", staging)},
		{"prod", "[10%, 50%, 100%]", regions("p", prod)},
	}
	var cfg strings.Builder
	cfg.WriteString("dimensions: [environments, regions]\nrepository: {url: https://git.example.com/fleet.git, revision: main}\n" +
		"promotion: {level: regions}\nrender: {namePrefix: \"{{ .Values.cluster.region }}-\"}\nsequence:\n  environments:\n")
	for _, st := range stages {
		fmt.Fprintf(&cfg, "    - name: %s\n", st.name)
		if st.waves != "" {
			fmt.Fprintf(&cfg, "      rollout: {waves: %s}\n", st.waves)
		}
		fmt.Fprintf(&cfg, "      regions: [%s]\n", strings.Join(st.regions, ", "))
	}
	cfg.WriteString("cluster_types: [workload, hub]\n")
	write(b, dir, "config/config.yaml", cfg.String())
	write(b, dir, "config/workload/defaults.yaml", "applications:\n  default:\n    project: default\n")
	write(b, dir, "config/hub/defaults.yaml", "applications:\n  default:\n    project: default\n")
	for i := range components {
		write(b, dir, fmt.Sprintf("config/workload/c%03d/values.yaml", i), fmt.Sprintf(`applications:
  c%03d:
    source:
      repoURL: https://charts.example.com
      chart: c%03d
      targetRevision: 1.0.0
    destination:
      server: https://kubernetes.default.svc
      namespace: c%03d
`, i, i, i))
	}
	write(b, dir, "config/clusters/hub.yaml", "type: hub\ntarget: dev/hub\n")
	var spokes []argosim.Spoke
	for _, st := range stages {
		for _, r := range st.regions {
			if r == "hub" {
				continue
			}
			name := "spoke-" + r
			write(b, dir, "config/clusters/"+name+".yaml", fmt.Sprintf("type: workload\ntarget: %s/%s\nserver: https://%s.invalid\nhub: hub\n", st.name, r, name))
			spokes = append(spokes, argosim.Spoke{Name: name, Dir: "rendered/workload/" + st.name + "/" + r})
		}
	}
	return spokes
}

func write(b testing.TB, dir, p, data string) {
	b.Helper()
	full := filepath.Join(dir, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
		b.Fatal(err)
	}
}

func render(b testing.TB, dir string) {
	b.Helper()
	if _, err := output.Run(output.Options{Root: dir, FS: os.DirFS(dir)}); err != nil {
		b.Fatal(err)
	}
}

// pushGit is the rollout's git; after each push it tells argosim the
// remote's new main, as a webhook would tell Argo CD.
type pushGit struct {
	git.Exec
	bare string
	sim  *argosim.Sim

	// mu guards took: the wall time of strata's git commands by
	// subcommand, and their count.
	mu   sync.Mutex
	took map[string]*gitTime
}

type gitTime struct {
	n   int
	sum time.Duration
}

func (g *pushGit) Run(ctx context.Context, args ...string) (string, error) {
	start := time.Now()
	out, err := g.Exec.Run(ctx, args...)
	if sub := git.Subcommand(args); sub != "" {
		g.mu.Lock()
		if g.took == nil {
			g.took = map[string]*gitTime{}
		}
		t := g.took[sub]
		if t == nil {
			t = &gitTime{}
			g.took[sub] = t
		}
		t.n++
		t.sum += time.Since(start)
		g.mu.Unlock()
	}
	if err == nil && len(args) > 0 && args[0] == "push" {
		rev, rerr := git.Exec{Dir: g.bare}.Run(ctx, "rev-parse", "main")
		if rerr != nil {
			return out, rerr
		}
		g.sim.Pushed(strings.TrimSpace(rev))
	}
	return out, err
}

// String lists the git subcommands strata ran, the most time first:
// count and wall time summed.
func (g *pushGit) String() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	names := slices.Collect(maps.Keys(g.took))
	slices.SortFunc(names, func(a, b string) int { return cmp.Compare(g.took[b].sum, g.took[a].sum) })
	var parts []string
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s %d (%s)", n, g.took[n].n, g.took[n].sum.Round(time.Millisecond)))
	}
	return strings.Join(parts, ", ")
}

// qps lifts client-go's client-side rate limit, as for a hub's controller.
func qps(c *rest.Config) *rest.Config {
	c.QPS, c.Burst = 500, 1000
	return c
}

// countCalls wraps rt, counting each request in calls.
func countCalls(calls *argosim.Calls) func(http.RoundTripper) http.RoundTripper {
	return func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(req *http.Request) (*http.Response, error) {
			calls.Count(req)
			return rt.RoundTrip(req)
		})
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// peakRSS is this process's peak resident memory, KiB (VmHWM).
func peakRSS(b *testing.B) int {
	hwm := procField("/proc/self/status", "VmHWM:")
	if hwm == "" {
		b.Fatal("no VmHWM in /proc/self/status")
	}
	n, err := strconv.Atoi(strings.TrimSuffix(hwm, " kB"))
	if err != nil {
		b.Fatalf("VmHWM in /proc/self/status: %v", err)
	}
	return n
}
