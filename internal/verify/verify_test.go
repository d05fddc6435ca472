package verify

import (
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/diff"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/promote"
)

const config = `dimensions: [environments, regions]
repository: {url: https://example.com/fleet.git, revision: main}
sequence:
  environments:
    - name: dev
      regions: [eu]
    - name: prod
      promotion: manual
      regions: [eu, us]
cluster_types: [{name: web}]
`

const valuesV1 = `applications:
  app:
    source: {repoURL: https://charts.example.com, chart: app, targetRevision: "1.0"}
    destination: {name: in-cluster, namespace: app}
`

const patch = "applications:\n  app:\n    source: {targetRevision: \"2.0\"}\n"

func fleetFS(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{
		"config/config.yaml":         {Data: []byte(config)},
		"config/web/defaults.yaml":   {Data: []byte("applications:\n  default:\n    project: default\n")},
		"config/web/app/values.yaml": {Data: []byte(valuesV1)},
	}
	for p, data := range files {
		if data == "" {
			delete(m, p)
			continue
		}
		m[p] = &fstest.MapFile{Data: []byte(data)}
	}
	return m
}

// chartFleet is files over a fleet whose component app is found from a
// chart directory, without a values.yaml of its own.
func chartFleet(files map[string]string) map[string]string {
	out := map[string]string{
		"config/config.yaml":         config + "charts: [{dir: 'charts/{clusterType}', application: {source: {repoURL: https://example.com/fleet.git, path: '{path}'}, destination: {name: in-cluster}}}]\n",
		"config/web/app/values.yaml": "",
		"charts/web/app/Chart.yaml":  "name: app\n",
	}
	for k, v := range files {
		out[k] = v
	}
	return out
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name       string
		base, head map[string]string
		trailers   []promote.Approval
		want       []string // file:line target rule
	}{
		{
			name: "a change that reaches only ungated targets is clean",
			head: map[string]string{"config/web/app/dev/override.yaml": "applications:\n  app:\n    destination: {namespace: app-dev}\n"},
		},
		{
			name: "a pin moved on a gated node is named",
			head: map[string]string{"config/config.yaml": strings.Replace(config, "promotion: manual", "promotion: manual\n      revision: abc1234", 1)},
			want: []string{"config/config.yaml:9 prod/eu outside-patch", "config/config.yaml:9 prod/us outside-patch"},
		},
		{
			name:     "a pin moved with a trailer approving the gate is clean",
			head:     map[string]string{"config/config.yaml": strings.Replace(config, "promotion: manual", "promotion: manual\n      revision: abc1234", 1)},
			trailers: ParseTrailer("Jane <jane@example.com> for prod"),
		},
		{
			name: "a patch removed inside a gate (a rollback) is named",
			base: map[string]string{"config/web/app/dev/patch-001.yaml": patch, "config/web/app/prod/eu/patch-001.yaml": patch},
			head: map[string]string{"config/web/app/dev/patch-001.yaml": patch},
			want: []string{"config/web/app/prod/eu/patch-001.yaml:1 prod/eu removed-in-gate"},
		},
		{
			name: "a malformed approval approves nothing and is named",
			base: map[string]string{"config/web/app/dev/patch-001.yaml": patch},
			head: map[string]string{"config/web/app/dev/patch-001.yaml": patch,
				"config/web/app/prod/eu/patch-001.yaml": "metadata:\n  approvals:\n    - {node: prod, by: Jane, at: soon}\n" + patch},
			want: []string{"config/web/app/prod/eu/patch-001.yaml:1 prod gate", "config/web/app/prod/eu/patch-001.yaml:3 prod/eu gate"},
		},
		{
			name: "a patch removed outside gates is clean",
			base: map[string]string{"config/web/app/dev/patch-001.yaml": patch},
		},
		{
			name: "a fold into the values.yaml a chart's component lacked enters the gate",
			base: chartFleet(map[string]string{"config/web/app/dev/patch-001.yaml": patch}),
			head: chartFleet(map[string]string{"config/web/app/values.yaml": patch}),
			want: []string{"config/web/app/values.yaml:1 prod gate"},
		},
		{
			name: "a patch at the second region of the gate skips the first",
			base: map[string]string{"config/web/app/dev/patch-001.yaml": patch},
			head: map[string]string{"config/web/app/dev/patch-001.yaml": patch, "config/web/app/prod/us/patch-001.yaml": patch},
			want: []string{"config/web/app/prod/us/patch-001.yaml:1 prod/eu gap", "config/web/app/prod/us/patch-001.yaml:1 prod gate"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := &diff.Revision{Rev: "main", Commit: "0123456789abcdef", FS: fleetFS(tt.base)}
			res, err := Check(Options{Base: base, Head: fleetFS(tt.head), Trailers: tt.trailers})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range res.Findings {
				got = append(got, strings.Join([]string{f.File + ":" + itoa(f.Line), f.Target, f.Rule}, " "))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("findings (-want +got)\n%s\n%+v", diff, res.Findings)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestParseTrailer(t *testing.T) {
	tests := []struct {
		in   string
		want []promote.Approval
	}{
		{"Jane Doe <jane@example.com>", []promote.Approval{{By: "Jane Doe <jane@example.com>"}}},
		{"Jane Doe <jane@example.com> for production", []promote.Approval{{Node: "production", By: "Jane Doe <jane@example.com>"}}},
		{"Jane <j@x> for production, production/prod-1", []promote.Approval{{Node: "production", By: "Jane <j@x>"}, {Node: "production/prod-1", By: "Jane <j@x>"}}},
		{"Ops team for the win <ops@x>", []promote.Approval{{By: "Ops team for the win <ops@x>"}}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, ParseTrailer(tt.in)); diff != "" {
			t.Errorf("ParseTrailer(%q) (-want +got)\n%s", tt.in, diff)
		}
	}
}

// A pin's change behind a gate names each revision it moves: the root's
// and the named ones, from and to, in the message and in JSON.
func TestCheckNamesRevisions(t *testing.T) {
	named := strings.Replace(config, "sequence:", "revisions:\n  charts: {}\n  addons: {default: stable}\nsequence:", 1)
	base := strings.Replace(named, "promotion: manual", "promotion: manual\n      revisions: {charts: aaaaaaa}", 1)
	head := strings.Replace(named, "promotion: manual", "promotion: manual\n      revision: abc1234\n      revisions: {charts: bbbbbbb}", 1)
	res, err := Check(Options{Base: &diff.Revision{Rev: "main", Commit: "0123456789abcdef", FS: fleetFS(map[string]string{"config/config.yaml": base})},
		Head: fleetFS(map[string]string{"config/config.yaml": head})})
	if err != nil {
		t.Fatal(err)
	}
	want := []RevisionMove{{Name: fleet.RootRevisionName, From: "main", To: "abc1234"}, {Name: "charts", From: "aaaaaaa", To: "bbbbbbb"}}
	if len(res.Findings) != 2 {
		t.Fatalf("findings %+v, want one per target of prod", res.Findings)
	}
	for _, f := range res.Findings {
		if diff := cmp.Diff(want, f.Revisions); diff != "" {
			t.Errorf("%s: revisions (-want +got)\n%s", f.Target, diff)
		}
		if !strings.Contains(f.Message, "(it moves revision root from main to abc1234, revision charts from aaaaaaa to bbbbbbb)") {
			t.Errorf("%s: message %q names not the revisions moved", f.Target, f.Message)
		}
	}
}
