package render_test

import (
	"flag"
	"github.com/strata-fleet/strata/internal/testing/goldenfile"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/render"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// Two small dimensions keep the golden files short.
const (
	twoLevels = "dimensions: [environments, regions]\ncluster_types: [{name: hub}]\n"
	oneTarget = "sequence:\n  environments:\n  - name: prod\n    regions: [{name: us-east1}]\n"

	hubDefaults = `applications:
  default:
    project: default
    namespace: argocd
    destination:
      name: "{{` + "`{{ .Values.cluster.name }}`" + `}}"
applicationsets:
  default:
    namespace: argocd
`
)

// goldenCases are small fleets, each rendered whole into
// testdata/<name>.golden.
var goldenCases = []struct {
	name  string
	files map[string]string
}{
	{
		// Pass 2 resolves {{ .Values... }} written in values; one level of
		// escaping survives for Argo CD (or the Helm render of rendered/),
		// two levels survive as an escape for a third evaluation.
		name: "double-templating-and-escapes",
		files: map[string]string{
			"config/config.yaml":       twoLevels + oneTarget,
			"config/hub/defaults.yaml": hubDefaults,
			"config/hub/app/values.yaml": "applications:\n  app:\n    source:\n      repoURL: https://charts.example.com\n      chart: app\n      targetRevision: 1.0.0\n" +
				"      helm:\n        valuesObject:\n" +
				"          region: \"{{ .Values.cluster.region }}\"\n" +
				"          bucket: \"logs-{{ .Values.cluster.environment }}-{{ .Values.cluster.region }}\"\n" +
				"          project: '{{`{{ index .metadata.annotations \"example.com/project\" }}`}}'\n" +
				"          twice: '{{`{{\"{{\"}} .kept {{\"}}\"}}`}}'\n" +
				"    destination:\n      namespace: app\n",
		},
	},
	{
		// enabled: false (a strata extension) leaves an item out of a
		// target's templates; an override can turn it back on.
		name: "enabled-false",
		files: map[string]string{
			"config/config.yaml":       twoLevels + "sequence:\n  environments:\n  - name: prod\n    regions: [{name: us-east1}, {name: eu-west1}]\n",
			"config/hub/defaults.yaml": hubDefaults,
			"config/hub/shown/values.yaml": "applications:\n  shown:\n    source: {repoURL: https://example.com/shown, chart: shown, targetRevision: 1.0.0}\n" +
				"    destination: {namespace: shown}\n",
			"config/hub/hidden/values.yaml": "applications:\n  hidden:\n    enabled: false\n" +
				"    source: {repoURL: https://example.com/hidden, chart: hidden, targetRevision: 1.0.0}\n    destination: {namespace: hidden}\n",
			"config/hub/hidden/prod/eu-west1/override.yaml": "applications:\n  hidden:\n    enabled: true\n",
			"config/hub/set/values.yaml":                    "applicationsets:\n  set:\n    enabled: false\n    generators: [{clusters: {}}]\n",
		},
	},
	{
		// syncWave (a strata extension) becomes the sync-wave annotation,
		// as a string, next to additionalAnnotations.
		name: "sync-wave",
		files: map[string]string{
			"config/config.yaml":       twoLevels + oneTarget,
			"config/hub/defaults.yaml": hubDefaults,
			"config/hub/crds/values.yaml": "applications:\n  crds:\n    syncWave: -1\n" +
				"    source: {repoURL: https://example.com/crds, chart: crds, targetRevision: 1.0.0}\n    destination: {namespace: crds}\n",
			"config/hub/app/values.yaml": "applications:\n  app:\n    syncWave: 3\n    additionalAnnotations: {example.com/owner: team-a}\n" +
				"    additionalLabels: {tier: gold}\n" +
				"    source: {repoURL: https://example.com/app, chart: app, targetRevision: 1.0.0}\n    destination: {namespace: app}\n",
		},
	},
	{
		name: "applicationsets",
		files: map[string]string{
			"config/config.yaml":       twoLevels + oneTarget,
			"config/hub/defaults.yaml": hubDefaults,
			"config/hub/spokes/values.yaml": `applicationsets:
  spokes:
    goTemplate: true
    generators:
    - clusters:
        selector:
          matchLabels:
            example.com/region: "{{ .Values.cluster.region }}"
    template:
      metadata:
        name: "spoke-{{` + "`{{ .name }}`" + `}}"
        labels:
          environment: "{{ .Values.cluster.environment }}"
      spec:
        project: default
        source:
          repoURL: https://git.example.com/fleet
          targetRevision: HEAD
          path: "rendered/spoke/{{ .Values.cluster.environment }}/{{ .Values.cluster.region }}"
          helm:
            valuesObject:
              cluster:
                name: "{{` + "`{{ .name }}`" + `}}"
                region: "{{ .Values.cluster.region }}"
        destination:
          server: "{{` + "`{{ .server }}`" + `}}"
          namespace: argocd
        syncPolicy:
          automated: {prune: true, selfHeal: true}
    templatePatch: |
      spec:
        source:
          helm:
            releaseName: "{{` + "`{{ .name }}`" + `}}-{{ .Values.cluster.region }}"
`,
			"config/hub/multi/values.yaml": `applicationsets:
  multi:
    generators: [{list: {elements: [{name: a}, {name: b}]}}]
    template:
      metadata: {name: "multi-{{` + "`{{ .name }}`" + `}}"}
      spec:
        project: default
        sources:
        - {repoURL: https://example.com/charts, chart: multi, targetRevision: 2.0.0}
        - {repoURL: https://git.example.com/values, targetRevision: main, ref: values}
        destination: {name: in-cluster, namespace: multi}
`,
		},
	},
	{
		// valuesObject keeps numbers as numbers; YAML 1.1 booleans (yes,
		// off) are booleans, quoted ones strings; octal, hex and
		// underscores are integers.
		name: "values-object-scalars",
		files: map[string]string{
			"config/config.yaml":       twoLevels + oneTarget,
			"config/hub/defaults.yaml": hubDefaults,
			"config/hub/app/values.yaml": `applications:
  app:
    source:
      repoURL: https://example.com/app
      chart: app
      targetRevision: 1.10
      helm:
        valuesObject:
          replicas: 3
          ratio: 0.25
          big: 12345678901
          octal: 0755
          hex: 0x1F
          underscore: 1_000
          exponent: 1.0e+3
          yesBool: yes
          offBool: Off
          quotedYes: 'yes'
          quotedNumber: '3'
          version: "1.10"
          nothing: ~
    destination: {namespace: app}
`,
		},
	},
	{
		// A repository's own argocd-apps/ chart replaces the built-in one.
		name: "own-templates-chart",
		files: map[string]string{
			"config/config.yaml":       twoLevels + oneTarget,
			"config/hub/defaults.yaml": hubDefaults,
			"config/hub/app/values.yaml": "applications:\n  app:\n    source: {repoURL: https://example.com/app, chart: app, targetRevision: 1.0.0}\n" +
				"    destination: {namespace: app}\n",
			"argocd-apps/Chart.yaml": "apiVersion: v2\nname: own-apps\nversion: 0.1.0\n",
			"argocd-apps/templates/applications.yaml": `{{- range $name, $app := .Values.applications }}
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: {{ $name }}
  labels:
    rendered-by: own-chart
    region: "{{ "{{" }} .Values.cluster.region {{ "}}" }}"
spec:
  project: {{ $app.project }}
  source:
    {{- toYaml $app.source | nindent 4 }}
  destination:
    {{- toYaml $app.destination | nindent 4 }}
{{- end }}
`,
		},
	},
	{
		// A plain seed 003 repository: no repository:, no pins, no
		// cluster.revision (it renders exactly as the reference).
		name: "revision-absent",
		files: map[string]string{
			"config/config.yaml":       twoLevels + oneTarget,
			"config/hub/defaults.yaml": hubDefaults,
			"config/hub/app/values.yaml": "applications:\n  app:\n    source: {repoURL: https://example.com/app, chart: app, targetRevision: 1.0.0}\n" +
				"    destination: {namespace: app}\n",
		},
	},
	{
		// repository: gives every target the repository's revision.
		name: "revision-from-repository",
		files: map[string]string{
			"config/config.yaml":       twoLevels + oneTarget + "repository: {url: https://git.example.com/fleet, revision: main}\n",
			"config/hub/defaults.yaml": hubDefaults,
			"config/hub/root/values.yaml": "applications:\n  root:\n    source:\n      repoURL: https://git.example.com/fleet\n" +
				"      targetRevision: \"{{ .Values.cluster.revision }}\"\n      path: rendered/hub/{{ .Values.cluster.environment }}/{{ .Values.cluster.region }}\n" +
				"    destination: {namespace: argocd}\n",
		},
	},
	{
		// A pin on a node gives the targets under it their revision; the
		// others, with no repository: declared, have none.
		name: "revision-pinned-node",
		files: map[string]string{
			"config/config.yaml": twoLevels + "sequence:\n  environments:\n  - name: integration\n    regions: [{name: us-east1}]\n" +
				"  - name: prod\n    revision: v1.2.0\n    regions: [{name: us-east1}]\n",
			"config/hub/defaults.yaml": hubDefaults,
			"config/hub/app/values.yaml": "applications:\n  app:\n    source: {repoURL: https://example.com/app, chart: app, targetRevision: 1.0.0}\n" +
				"    destination: {namespace: app}\n",
		},
	},
	{
		// render.namePrefix (a strata extension) goes before the name of
		// every resource of the built-in chart, but an item's name: wins.
		name:  "name-prefix",
		files: namePrefixFleet,
	},
	{
		// Named revisions: the regional platform's charts pinned per node
		// while the root (and so the values) follows main; ADR-006's
		// components at stable while the root runs ops-stable; an addons
		// release chosen by an inventory label.
		name: "named-revisions",
		files: map[string]string{
			"config/config.yaml": twoLevels + "repository: {url: https://git.example.com/platform, revision: main}\n" +
				"revisions:\n  charts: {}\n  components: {default: stable}\n  addons: {label: addons_release, default: v1.0.0}\n" +
				"sequence:\n  environments:\n  - name: integration\n    regions: [{name: us-east1}]\n" +
				"  - name: production\n    revisions: {charts: 826fa76d08fc2ce87c863196e52d5a4fa9259a82}\n    regions: [{name: us-east1, revision: ops-stable}]\n",
			"config/hub/defaults.yaml":    hubDefaults,
			"config/clusters/ops-01.yaml": "type: hub\ntarget: production/us-east1\nlabels: {addons_release: v1.2.0}\n",
			"config/hub/hypershift/values.yaml": `applications:
  hypershift:
    source:
      repoURL: https://git.example.com/platform
      path: argocd/config/hub/hypershift
      targetRevision: '{{ .Values.cluster.revisions.charts }}'
      helm:
        valuesObject: {replicas: 2, components: '{{ .Values.cluster.revisions.components }}', addons: '{{ .Values.cluster.revisions.addons }}'}
    destination: {namespace: hypershift}
`,
		},
	},
	{
		// clusters: {facts: true}: the inventory's cluster is a value of
		// its target in every component (ADR-006's API server URL), the
		// target with two clusters lists them; a node's values: reach
		// every component under it.
		name:  "cluster-facts",
		files: clusterFactsFleet,
	},
}

// clusterFactsFleet is a hub fleet whose components read the inventory.
var clusterFactsFleet = map[string]string{
	"config/config.yaml": twoLevels + "clusters: {facts: true}\n" +
		"sequence:\n  environments:\n  - name: prod\n    values: {domain: prod.example.com}\n    regions: [{name: us-east1}, {name: eu-west1}]\n",
	"config/hub/defaults.yaml":     hubDefaults,
	"config/clusters/ops-01.yaml":  "type: hub\ntarget: prod/us-east1\nlabels: {tier: gold}\nannotations: {example.com/owner: platform}\n",
	"config/clusters/prod-01.yaml": "type: hub\ntarget: prod/eu-west1\nlabels: {tier: silver}\n",
	"config/clusters/prod-02.yaml": "type: hub\ntarget: prod/eu-west1\n",
	"config/hub/monitoring/values.yaml": `applications:
  monitoring:
    source:
      repoURL: https://example.com/charts
      chart: kube-prometheus-stack
      targetRevision: 1.0.0
      helm:
        valuesObject:
          clusterName: '{{ .Values.cluster.name | default "shared" }}'
          tier: '{{ with .Values.cluster.labels }}{{ .tier }}{{ end }}'
          ingress: 'grafana.{{ .Values.cluster.region }}.{{ .Values.cluster.domain }}'
          clusters: '{{ range .Values.clusters }}{{ .name }} {{ end }}'
    destination: {namespace: monitoring}
`,
	// The regional platform's root ApplicationSet: facts on the cluster
	// Secret, known only at run time, through clusterLabel and
	// clusterAnnotation.
	"config/hub/platform/values.yaml": `applicationsets:
  platform:
    goTemplate: true
    generators: [{clusters: {selector: {matchLabels: {cluster_type: hub}}}}]
    template:
      metadata: {name: '{{ argocd ".name" }}-platform'}
      spec:
        project: default
        destination: {server: '{{ argocd ".server" }}', namespace: platform}
        source:
          repoURL: https://example.com/platform
          path: charts/platform
          targetRevision: '{{ clusterAnnotation "git_revision" }}'
          helm:
            valuesObject:
              targetGroupArn: '{{ clusterAnnotation "api_target_group_arn" }}'
              tier: '{{ clusterLabel "example.com/tier" }}'
`,
}

// namePrefixFleet names its resources <region>-<item> (config.yaml's
// render.namePrefix), but for the item that sets name:.
var namePrefixFleet = map[string]string{
	"config/config.yaml": twoLevels + "render:\n  namePrefix: '{{ .Values.cluster.region }}-'\n" +
		"sequence:\n  environments:\n  - name: prod\n    regions: [{name: us-east1}, {name: eu-west1}]\n",
	"config/hub/defaults.yaml": hubDefaults,
	"config/hub/app/values.yaml": "applications:\n  app:\n    source: {repoURL: https://example.com/app, chart: app, targetRevision: 1.0.0}\n" +
		"    destination: {namespace: app}\n  off:\n    enabled: false\n    name: app\n" +
		"  own:\n    name: own-{{ .Values.cluster.environment }}\n" +
		"    source: {repoURL: https://example.com/own, chart: own, targetRevision: 1.0.0}\n    destination: {namespace: own}\n",
	"config/hub/set/values.yaml": "applicationsets:\n  set:\n    generators: [{clusters: {}}]\n",
}

func TestRenderGolden(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			got := renderFleet(t, tc.files)
			goldenfile.Check(t, filepath.Join("testdata", tc.name+".golden"), []byte(got), *update)
		})
	}
}

// renderFleet renders every target of the fleet in files and returns its
// files, each under a "--- path" line, in target then path order.
func renderFleet(t *testing.T, files map[string]string) string {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, data := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(data)}
	}
	f, err := fleet.Load(fsys)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	chart, err := render.LoadChart(fsys)
	if err != nil {
		t.Fatalf("LoadChart: %v", err)
	}
	r := &render.Renderer{Fleet: f, Chart: chart}
	outs, err := r.RenderAll(r.Targets(), nil)
	if err != nil {
		t.Fatalf("RenderAll: %v", err)
	}
	var b strings.Builder
	for _, o := range outs {
		for _, file := range o.Files {
			b.WriteString("--- " + file.Path + "\n")
			b.Write(file.Data)
		}
	}
	return b.String()
}

// TestOwnersFollowNamePrefix: the owners of the built-in chart's resources
// are by their rendered names, the name prefix and name: applied.
func TestOwnersFollowNamePrefix(t *testing.T) {
	fsys := fstest.MapFS{}
	for name, data := range namePrefixFleet {
		fsys[name] = &fstest.MapFile{Data: []byte(data)}
	}
	r, err := render.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Owners(r.Targets()[1])
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]render.Owner{
		"eu-west1-app": {Component: "app", Kind: "Application"},
		"own-prod":     {Component: "app", Kind: "Application"},
		"eu-west1-set": {Component: "set", Kind: "ApplicationSet"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("owners (-want +got):\n%s", diff)
	}
}
