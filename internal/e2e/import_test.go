//go:build linux

package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestE2EImportRegional: a regional platform in openshift-online/
// rosa-regional-platform's shape, imported with strata import rosa-shards,
// delivers a values change and a chart change to staging and production
// exactly as the repository does without strata; strata render writes
// render.py's files at render.py's paths. Each cluster runs its own
// Argo CD (the hub is staging, the spoke production); its root
// ApplicationSet reads the chart directories at the shard's pinned
// revision and the values render.py writes at the cluster's branch. So a
// values change applies at once, everywhere; a chart change waits for the
// pin, which strata pin moves (the config_revision made a named revision,
// charts).
func TestE2EImportRegional(t *testing.T) {
	e := Start(t, Options{OwnFleet: true, HubTarget: "staging/us-east-1", Spokes: []Spoke{
		{Name: "prod", Target: "production/us-east-1", OwnArgoCD: true},
	}})
	defer e.Done()
	mark := e.Mark()

	// The repository as its team has it: the chart, the shards, and what
	// render.py writes for the $values source.
	regional := &regionalRepo{e: e, buckets: map[string]string{"staging": "oidc-stg-v1", "production": "oidc-prod-v1"}}
	regional.write("1.0.0", nil)
	c0 := e.Commit("the regional platform, before strata")
	regional.write("1.0.0", map[string]string{"staging": c0, "production": c0})
	e.Commit("pin staging and production to " + c0[:12])

	r := e.MustStrata("import", "rosa-shards", filepath.Join(e.Repo.Dir, "argocd"), "--into", e.Repo.Dir)
	for _, want := range []string{"management-cluster/staging/us-east-1", "management-cluster/production/us-east-1"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("strata import: want the report to name %s, got\n%s", want, r.Stdout)
		}
	}
	// The import makes config_revision the named revision charts, pinned
	// per node, and writes render.py's layout and values files.
	cfg := e.Repo.ReadFile("config/config.yaml")
	for _, want := range []string{"revisions: {charts: " + c0 + "}", "path: argocd/rendered/{environment}/{region}/{clusterType}-values.yaml"} {
		if !strings.Contains(cfg, want) {
			t.Fatalf("the imported config.yaml: want %q, got\n%s", want, cfg)
		}
	}
	// What the import leaves to the team: where Argo CD pulls the
	// repository from (the clusters' git_repo).
	e.Repo.WriteFile("config/config.yaml", cfg+"repository: {url: "+e.Repo.URL+", revision: main}\n")
	regional.strata = true // render writes the values files from now on
	e.Repo.WriteFile("config/clusters/"+HubName+".yaml", "type: management-cluster\ntarget: staging/us-east-1\n")
	e.Repo.WriteFile("config/clusters/prod.yaml", "type: management-cluster\ntarget: production/us-east-1\n")
	e.MustStrata("render")
	e.MustStrata("validate")
	c1 := e.Commit("strata import rosa-shards, the pins named charts")
	mark("import the regional platform, render and commit")

	for _, c := range []string{HubName, "prod"} {
		if r := e.Bootstrap(c); !strings.Contains(r.Stdout, "(distributed model)") {
			t.Errorf("strata bootstrap %s: want the distributed model, got\n%s", c, r.Stdout)
		}
	}
	e.Converge(regional.expect(c1, map[string]string{HubName: "1.0.0", "prod": "1.0.0"}))
	regional.checkPins(map[string]string{HubName: c0, "prod": c0})
	mark("bootstrap both clusters: charts at the pin, values at main")

	// A values change: in config/, rendered into the values files only;
	// both clusters read them at main at once.
	regional.buckets = map[string]string{"staging": "oidc-stg-v2", "production": "oidc-prod-v2"}
	for env, bucket := range regional.buckets {
		e.Repo.WriteFile("config/management-cluster/shard-values/"+env+"/override.yaml", "values:\n  hypershift:\n    oidcBucket: "+bucket+"\n")
	}
	if r := e.MustStrata("render"); !strings.Contains(r.Stdout, "2 updated") {
		t.Errorf("strata render of a values change: want the two values files updated, got\n%s", r.Stdout)
	}
	c2 := e.Commit("new OIDC buckets")
	e.Converge(regional.expect(c2, map[string]string{HubName: "1.0.0", "prod": "1.0.0"}))
	regional.checkPins(map[string]string{HubName: c0, "prod": c0})
	mark("a values change: applied at once in staging and production")

	// A chart change: main moves, neither cluster takes it.
	regional.write("2.0.0", map[string]string{"staging": c0, "production": c0})
	e.MustStrata("render", "--check")
	c3 := e.Commit("hypershift 2.0.0")
	e.Converge(regional.expect(c3, map[string]string{HubName: "1.0.0", "prod": "1.0.0"}))
	regional.checkPins(map[string]string{HubName: c0, "prod": c0})
	mark("a chart change: neither cluster moves before the pin")

	// strata pin staging: staging takes the chart, production does not.
	r = e.MustStrata("pin", "staging", c3, "--name", "charts")
	if !strings.Contains(r.Stdout, "staging/us-east-1") || strings.Contains(r.Stdout, "production/us-east-1") {
		t.Errorf("strata pin staging: want staging's target and not production's in the plan, got\n%s", r.Stdout)
	}
	e.MustStrata("render", "--check") // pin rendered what it changed
	c4 := e.Commit("pin staging's charts to " + c3[:12])
	e.Converge(regional.expect(c4, map[string]string{HubName: "2.0.0", "prod": "1.0.0"}))
	regional.checkPins(map[string]string{HubName: c3, "prod": c0})
	mark("strata pin staging: staging takes the chart")

	e.MustStrata("pin", "production", c3, "--name", "charts")
	e.MustStrata("render", "--check")
	c5 := e.Commit("pin production's charts to " + c3[:12])
	e.Converge(regional.expect(c5, map[string]string{HubName: "2.0.0", "prod": "2.0.0"}))
	regional.checkPins(map[string]string{HubName: c3, "prod": c3})
	mark("strata pin production: production takes the chart")
}

// regionalRepo writes the parts of the regional platform's repository the
// scenario needs, in its shape: argocd/config.yaml (the shards),
// argocd/config/applicationset/base-applicationset.yaml, one chart of the
// management-cluster type (hypershift: a ConfigMap with its version, the
// shard's bucket and the region), and render.py's values files. Its own
// files, written for the test.
type regionalRepo struct {
	e *Env
	// buckets are the shards' values, by environment.
	buckets map[string]string
	// strata: strata render writes the values files (after the import);
	// write leaves them alone.
	strata bool
}

// write writes the repository with the chart at version and the shards'
// config_revision (none when nil).
func (g *regionalRepo) write(version string, pins map[string]string) {
	r := g.e.Repo
	var shards strings.Builder
	shards.WriteString("# The regional platform's shards: one per environment and region.\nshards:\n")
	for _, env := range []string{"staging", "production"} {
		fmt.Fprintf(&shards, "  - region: \"us-east-1\"\n    environment: %q\n", env)
		if pins != nil {
			fmt.Fprintf(&shards, "    config_revision:\n      management-cluster: %q\n", pins[env])
		}
		fmt.Fprintf(&shards, "    values:\n      management-cluster:\n        hypershift:\n          oidcBucket: %q\n", g.buckets[env])
		if g.strata {
			continue
		}
		// render.py's output for the shard, read through $values.
		r.WriteFile("argocd/rendered/"+env+"/us-east-1/management-cluster-values.yaml", fmt.Sprintf(
			"# GENERATED FILE - DO NOT EDIT MANUALLY\n#\n# Cluster Type: management-cluster\n# Shard: us-east-1 (%s)\n#\n\nhypershift:\n  oidcBucket: %s\n", env, g.buckets[env]))
	}
	r.WriteFile("argocd/config.yaml", shards.String())
	r.WriteFile("argocd/config/applicationset/base-applicationset.yaml", regionalApplicationSet)
	r.WriteFile("argocd/config/management-cluster/hypershift/Chart.yaml", "apiVersion: v2\nname: hypershift\nversion: 0.1.0\n")
	r.WriteFile("argocd/config/management-cluster/hypershift/values.yaml", fmt.Sprintf(
		"version: %q\nglobal:\n  region: \"\"\nhypershift:\n  oidcBucket: \"\"\n", version))
	r.WriteFile("argocd/config/management-cluster/hypershift/templates/configmap.yaml", `apiVersion: v1
kind: ConfigMap
metadata:
  name: hypershift
data:
  version: {{ .Values.version | quote }}
  region: {{ .Values.global.region | quote }}
  oidcBucket: {{ .Values.hypershift.oidcBucket | quote }}
`)
}

// regionalApplicationSet is the base ApplicationSet in the platform's
// shape: a cluster x git-directories matrix, the chart at the cluster's
// revision (render.py pins it), the values at the cluster's revision
// always.
const regionalApplicationSet = `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: root-applicationset
  namespace: argocd
spec:
  goTemplate: true
  generators:
    - matrix:
        generators:
          - clusters:
              selector:
                matchLabels:
                  argocd.argoproj.io/secret-type: cluster
          - git:
              directories:
                - path: argocd/config/{{ .metadata.labels.cluster_type }}/*
              repoURL: '{{ .metadata.annotations.git_repo }}'
              revision: '{{ .metadata.annotations.git_revision }}'
  template:
    metadata:
      name: '{{ .path.basename }}'
      labels:
        cluster_type: '{{ .metadata.labels.cluster_type }}'
        environment: '{{ .metadata.labels.environment }}'
    spec:
      project: default
      destination:
        namespace: '{{ .path.basename }}'
        server: '{{ .server }}'
      syncPolicy:
        automated:
          prune: true
          selfHeal: true
        syncOptions:
          - ServerSideApply=true
          - CreateNamespace=true
      sources:
        - helm:
            valueFiles:
              - values.yaml
              - $values/argocd/rendered/{{ .metadata.labels.environment }}/{{ .metadata.labels.region }}/{{ .metadata.labels.cluster_type }}-values.yaml
            valuesObject:
              global:
                region: '{{ .metadata.labels.region }}'
          path: '{{ .path.path }}'
          repoURL: '{{ .metadata.annotations.git_repo }}'
          targetRevision: '{{ .metadata.annotations.git_revision }}'
        # Another spelling of the same repository, as the platform's
        # github.com:443: Argo CD refuses a $values source of the chart's
        # repository at another revision (argo-cd#12159).
        - repoURL: '{{ .metadata.annotations.git_repo | replace "127.0.0.1" "localhost" }}'
          targetRevision: '{{ .metadata.annotations.git_revision }}'
          ref: values
`

// expect is the state at head with the hypershift ConfigMap of each
// cluster at the versions given: each cluster's root Application and its
// hypershift Application, synced (Converge resolves each source's
// revision: the chart's pin, the values' main).
func (g *regionalRepo) expect(head string, versions map[string]string) Expect {
	x := Expect{Head: head, State: State{}}
	for _, c := range g.e.Clusters() {
		x.Apps = append(x.Apps, appKey(c.Name, "root"), appKey(c.Name, "hypershift"))
		env := strings.Split(c.Target, "/")[0]
		x.State[c.Name+"/hypershift/hypershift"] = map[string]string{
			"version": versions[c.Name], "region": "us-east-1", "oidcBucket": g.buckets[env],
		}
	}
	return x
}

// checkPins checks the revisions of each cluster's hypershift Application:
// the chart at the cluster's pin, the values at main.
func (g *regionalRepo) checkPins(pins map[string]string) {
	g.e.t.Helper()
	apps, err := g.e.Apps()
	if err != nil {
		g.e.t.Fatal(err)
	}
	for c, pin := range pins {
		key := appKey(c, "hypershift")
		if got, want := apps[key].TargetRevision, pin+",main"; got != want {
			g.e.t.Errorf("Application %s: sources at %q, want the chart at its pin and the values at main: %q", key, got, want)
		}
	}
}
