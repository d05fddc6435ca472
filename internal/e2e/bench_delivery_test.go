//go:build linux

package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/strata-fleet/strata/internal/cli"
	"github.com/strata-fleet/strata/internal/testing/benchfleet/argosim"
	"github.com/strata-fleet/strata/internal/testing/testenv"
	"github.com/strata-fleet/strata/internal/testing/testgit"
)

// BenchmarkE2EDelivery is issue 25's delivery benchmark against real Argo
// CD, beside BenchmarkDelivery (internal/testing/benchfleet/argosim), which plays
// Argo CD: STRATA_BENCH_CLUSTERS spokes (default 100) registered with the
// hub's Argo CD as aliases of STRATA_BENCH_APISERVERS spoke API servers
// (default 2; each alias is its own loopback port, relayed to the API
// server, so Argo CD sees as many clusters), STRATA_BENCH_PATCHES
// components (default 10) deployed on each from the fleet's local chart,
// and one patch per component rolled out at once by the built strata
// binary, `strata rollout --all`, through dev, staging in waves [10%,
// 100%] and prod in waves [10%, 50%, 100%], soak 0: the sequence and waves
// of the simulated run. Argo CD compares every Application with Git by
// itself every 3 minutes (its default); the rollout's hard refreshes move
// the steps.
//
// It reports what the simulated run does (the rollout's time, the gap from
// a step's last Application turning healthy to the next step's push, the
// rollout's peak RSS, its list and watch calls) and where the time goes:
// Argo CD's part of each step (push to operation start, the sync operation,
// to healthy), strata's (healthy to next push), and the CPU each program
// used during the rollout. Run: hack/bench-delivery-argocd.sh; not part of
// make test (go test runs no benchmark without -bench).
func BenchmarkE2EDelivery(b *testing.B) {
	if testing.Short() {
		b.Skip("many minutes long: hack/bench-delivery-argocd.sh runs it")
	}
	clusters := argosim.EnvInt(b, "STRATA_BENCH_CLUSTERS", 100)
	patches := argosim.EnvInt(b, "STRATA_BENCH_PATCHES", 10)
	servers := argosim.EnvInt(b, "STRATA_BENCH_APISERVERS", 2)
	for range b.N {
		benchDelivery(b, clusters, patches, servers)
	}
}

// benchVersion is the version the patches roll out (from 1.0.0).
const benchVersion = "1.1.0"

// benchConverge bounds each wait for the whole fleet to settle.
const benchConverge = 45 * time.Minute

func benchDelivery(b *testing.B, clusters, patches, servers int) {
	testgit.Setenv(b)
	bin := buildStrata(b)
	var carriers []Spoke
	for i := range servers {
		carriers = append(carriers, Spoke{Name: fmt.Sprintf("apiserver-%d", i+1), Target: "dev/d0000"})
	}
	// The Applications: a component's on each spoke, each spoke's root,
	// the hub's root and its demo.
	apps := clusters*patches + clusters + 2
	e := Start(b, Options{Spokes: carriers, Resync: 3 * time.Minute, Size: benchSizing(b, apps)})
	defer e.Done()
	mark := e.Mark()
	observe := newBenchObserver(b, e.ArgoCD)

	spokes := e.writeBenchFleet(clusters, patches)
	e.addSyncOptions(benchSyncOptions())
	creds := e.aliasCredentials(spokes)
	mark(fmt.Sprintf("%d aliases of %d API servers, the fleet written", clusters, servers))

	rec := startRecorder(b, e)
	deployed := observe.phase("deploy")
	e.MustStrata("render")
	head := e.Commit("the bench fleet, rendered")
	e.Bootstrap(HubName)
	for _, s := range spokes {
		// Not logged: a hundred times the same lines.
		args := []string{"--root", e.Repo.Dir, "bootstrap", s.name, "--apply", "--yes", "--kubeconfig", e.Hub.API.Kubeconfig,
			"--context", testenv.ContextName, "--credentials-kubeconfig", creds, "--credentials-context", s.name}
		var stdout, stderr bytes.Buffer
		if code := cli.Main(args, &stdout, &stderr); code != 0 {
			b.Fatalf("strata bootstrap %s: exit %d\n%s", s.name, code, stderr.String())
		}
	}
	mark(fmt.Sprintf("bootstrap the hub and %d spokes", clusters))
	want := benchApps(spokes, patches)
	rec.settled(b, head, want)
	mark(fmt.Sprintf("deploy: %d Applications synced and healthy", rec.count()))
	deployed()

	for i := range patches {
		c := fmt.Sprintf("c%03d", i)
		e.Repo.WriteFile("config/spoke/"+c+"/dev/patch-001.yaml", versionPatch(c, benchVersion))
	}
	e.MustStrata("render")
	head = e.Commit(fmt.Sprintf("%d patches at dev", patches))
	rec.settled(b, head, want)
	mark(fmt.Sprintf("%d patches at dev, synced", patches))

	pushes := e.logPushes()
	proxy := countCalls(b, e.Hub.API.Config())
	cpu0 := cpuByProgram()
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	cmd := exec.Command(bin, "--root", e.Repo.Dir, "rollout", "--all", "--remote", "origin",
		"--kubeconfig", proxy.kubeconfig, "--context", "bench", "--soak", "0s", "--timeout", "15m", "-o", "json")
	cmd.Stdout, cmd.Stderr = out, errOut
	proxy.Reset()
	rolledOut := observe.phase("rollout")
	usage, err := argosim.RunChild(cmd, nil)
	cpu1 := cpuByProgram()
	mark("rollout --all")
	rolledOut()
	if err != nil {
		b.Fatalf("strata rollout --all: %v\n%s", err, tail(errOut.String(), 40))
	}
	b.Logf("strata rollout --all: %s", usage)

	r := analyse(b, e, rec, pushes(), out.String())
	r.took, r.maxRSS, r.calls = usage.Took, int(usage.MaxRSS/1024), proxy.String()
	r.cpu = cpuDelta(cpu0, cpu1)
	r.cpu["strata (child, with git)"] = (usage.User + usage.Sys).Seconds()
	r.report(b, clusters, patches, servers)
}

// benchSpoke is a spoke of the bench fleet: its name, environment, region
// and the alias its Argo CD reaches it at.
type benchSpoke struct {
	name, env, region, server string
	api                       *Cluster
}

// writeBenchFleet replaces the example fleet's configuration (keeping its
// chart, the spokes' defaults and the hub's demo) with the bench fleet: a
// tenth of the spokes in dev (with the hub), three tenths in staging, the
// rest in prod, one region each, each an alias of a spoke API server;
// components c000... each deploy the demo chart's ConfigMap, named after
// the region, into their own namespace.
func (e *Env) writeBenchFleet(clusters, components int) []benchSpoke {
	for _, p := range []string{"config/clusters", "config/spoke/demo", "config/hub/spoke-info"} {
		if err := os.RemoveAll(filepath.Join(e.Repo.Dir, p)); err != nil {
			e.t.Fatal(err)
		}
	}
	dev := max(1, clusters/10)
	staging := max(1, clusters*3/10)
	prod := max(1, clusters-dev-staging)
	stages := []struct {
		name, prefix, waves string
		n                   int
	}{
		{"dev", "d", "", dev},
		{"staging", "s", "[10%, 100%]", staging},
		{"prod", "p", "[10%, 50%, 100%]", prod},
	}
	var cfg strings.Builder
	fmt.Fprintf(&cfg, `# The delivery benchmark's fleet (bench_delivery_test.go).
dimensions: [environments, regions]
repository: {url: %s, revision: main}
promotion: {level: regions}
render: {namePrefix: "{{ .Values.cluster.region }}-"}
rollout: {soak: 0s, timeout: 15m}
sequence:
  environments:
`, e.Repo.URL)
	var spokes []benchSpoke
	for _, st := range stages {
		fmt.Fprintf(&cfg, "    - name: %s\n", st.name)
		if st.waves != "" {
			fmt.Fprintf(&cfg, "      rollout: {waves: %s}\n", st.waves)
		}
		var regions []string
		for i := range st.n {
			r := fmt.Sprintf("%s%04d", st.prefix, i)
			regions = append(regions, r)
			api := e.Spokes[len(spokes)%len(e.Spokes)]
			spokes = append(spokes, benchSpoke{name: "spoke-" + r, env: st.name, region: r, api: api,
				server: "https://" + relay(e.t, strings.TrimPrefix(api.API.URL, "https://"))})
		}
		if st.name == "dev" {
			regions = append(regions, HubName)
		}
		fmt.Fprintf(&cfg, "      regions: [%s]\n", strings.Join(regions, ", "))
	}
	cfg.WriteString("cluster_types: [hub, spoke]\n")
	e.Repo.WriteFile("config/config.yaml", cfg.String())
	e.Repo.WriteFile("config/clusters/"+HubName+".yaml", "type: hub\ntarget: dev/"+HubName+"\n")
	for _, s := range spokes {
		e.Repo.WriteFile("config/clusters/"+s.name+".yaml", fmt.Sprintf(
			"type: spoke\ntarget: %s/%s\nserver: %s\nhub: %s\n", s.env, s.region, s.server, HubName))
	}
	for i := range components {
		c := fmt.Sprintf("c%03d", i)
		e.Repo.WriteFile("config/spoke/"+c+"/values.yaml", fmt.Sprintf(`applications:
  %[1]s:
    source:
      repoURL: %[2]s
      path: charts/demo
      targetRevision: "{{`+"`{{ .Values.cluster.revision }}`"+`}}"
      helm:
        valuesObject:
          name: "%[1]s-{{ .Values.cluster.region }}"
          cluster:
            name: "{{`+"`{{ .Values.cluster.name }}`"+`}}"
            environment: "{{ .Values.cluster.environment }}"
            region: "{{ .Values.cluster.region }}"
          version: "1.0.0"
          tier: standard
    destination:
      namespace: %[1]s
`, c, e.Repo.URL))
	}
	return spokes
}

// benchApps names the Applications of the components on the spokes.
func benchApps(spokes []benchSpoke, components int) []string {
	var out []string
	for _, s := range spokes {
		for i := range components {
			out = append(out, fmt.Sprintf("%s-c%03d", s.region, i))
		}
	}
	return out
}

// aliasCredentials writes a kubeconfig with a context per spoke, named
// after it, that reaches its alias with the API server's CA (whose
// certificate names 127.0.0.1, the relay's address) and admin token: what
// bootstrap registers it with.
func (e *Env) aliasCredentials(spokes []benchSpoke) string {
	cfg := clientcmdapi.NewConfig()
	for _, s := range spokes {
		cfg.Clusters[s.name] = &clientcmdapi.Cluster{Server: s.server, CertificateAuthorityData: s.api.API.CAData}
		cfg.AuthInfos[s.name] = &clientcmdapi.AuthInfo{Token: s.api.API.Token}
		cfg.Contexts[s.name] = &clientcmdapi.Context{Cluster: s.name, AuthInfo: s.name}
	}
	path := filepath.Join(e.t.TempDir(), "aliases.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		e.t.Fatal(err)
	}
	return path
}

// logPushes installs a post-receive hook in the fleet's remote that logs
// when each push landed; the function it returns reads the log: the time
// each pushed commit reached main.
func (e *Env) logPushes() func() map[string]time.Time {
	bare := strings.TrimSpace(e.Repo.Git("remote", "get-url", "origin"))
	log := filepath.Join(e.t.TempDir(), "pushes.log")
	hook := fmt.Sprintf("#!/bin/sh\nwhile read old new ref; do echo \"$(date +%%s%%N) $new\" >> %s; done\n", log)
	if err := os.WriteFile(filepath.Join(bare, "hooks", "post-receive"), []byte(hook), 0o755); err != nil {
		e.t.Fatal(err)
	}
	return func() map[string]time.Time {
		data, err := os.ReadFile(log)
		if err != nil {
			e.t.Fatalf("reading the pushes' log: %v", err)
		}
		at := map[string]time.Time{}
		for line := range strings.SplitSeq(strings.TrimSpace(string(data)), "\n") {
			ns, sha, ok := strings.Cut(line, " ")
			n, err := strconv.ParseInt(ns, 10, 64)
			if !ok || err != nil {
				e.t.Fatalf("pushes.log: bad line %q", line)
			}
			at[sha] = time.Unix(0, n)
		}
		return at
	}
}

// buildStrata builds the strata binary, so that the rollout runs as a
// child whose peak RSS and CPU can be read.
func buildStrata(b *testing.B) string {
	bin := filepath.Join(b.TempDir(), "strata")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/strata")
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build ./cmd/strata: %v\n%s", err, out)
	}
	return bin
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
