package fleet_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/fleet"
)

// inventoryConfig is a fleet of two cluster types over environments ->
// regions, with pins.
const inventoryConfig = `dimensions: [environments, regions]
repository: {url: https://git.example.com/fleet.git, revision: main}
sequence:
  environments:
    - name: integration
      regions: [us-east1, eu-west1]
    - name: production
      promotion: manual
      revision: 826fa76d08fc2ce87c863196e52d5a4fa9259a82
      regions:
        - us-east1
        - name: eu-west1
          revision: {workload: v1.4.0}
cluster_types: [hub, workload]
`

// fleetFS returns a fleet whose config.yaml is config and whose cluster
// inventory holds files (path under config/clusters -> content).
func fleetFS(config string, files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{
		"config/config.yaml":                  {Data: []byte(config)},
		"config/hub/defaults.yaml":            {Data: []byte("applications: {default: {project: default}}\n")},
		"config/hub/argocd/values.yaml":       {Data: []byte("applications: {argocd: {destination: {namespace: argocd}}}\n")},
		"config/workload/defaults.yaml":       {Data: []byte("applications: {default: {project: default}}\n")},
		"config/workload/podinfo/values.yaml": {Data: []byte("applications: {podinfo: {destination: {namespace: podinfo}}}\n")},
	}
	for p, data := range files {
		fsys["config/clusters/"+p] = &fstest.MapFile{Data: []byte(data)}
	}
	return fsys
}

func TestInventory(t *testing.T) {
	f, err := fleet.Load(fleetFS(inventoryConfig, map[string]string{
		"hub-use1.yaml": "name: hub-use1\ntype: hub\ntarget: production/us-east1\ncontext: admin@hub-use1\nlabels: {tier: gold}\n",
		"tenant-a/spoke-1.yaml": `type: workload
target: production/eu-west1
server: https://10.0.0.1:6443
hub: hub-use1
annotations: {example.com/owner: team-a}
`,
		"spoke-2.yaml": `type: workload
target: integration/us-east1
server: https://10.0.0.2:6443
hub: hub-use1
externalSecret: {store: fleet-secrets, key: hub/spoke-2}
`,
		"README.md": "the inventory\n",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"hub-use1", "spoke-1", "spoke-2"}, f.ClusterNames()); diff != "" {
		t.Errorf("clusters (-want +got):\n%s", diff)
	}
	hub, spoke1, spoke2 := f.Cluster("hub-use1"), f.Cluster("spoke-1"), f.Cluster("spoke-2")
	if hub.Type != "hub" || hub.Target.ID() != "production/us-east1" || hub.Server != "" || hub.Context != "admin@hub-use1" || hub.Labels["tier"] != "gold" {
		t.Errorf("hub-use1 = %+v", hub)
	}
	if spoke1.Hub != "hub-use1" || spoke1.Server != "https://10.0.0.1:6443" || spoke1.Annotations["example.com/owner"] != "team-a" {
		t.Errorf("spoke-1 = %+v", spoke1)
	}
	want := &fleet.ExternalSecretRef{Store: "fleet-secrets", StoreKind: "ClusterSecretStore", Key: "hub/spoke-2", Property: "config"}
	if diff := cmp.Diff(want, spoke2.ExternalSecret); diff != "" {
		t.Errorf("spoke-2 externalSecret (-want +got):\n%s", diff)
	}
	var spokes []string
	for _, c := range f.Spokes("hub-use1") {
		spokes = append(spokes, c.Name)
	}
	if diff := cmp.Diff([]string{"spoke-1", "spoke-2"}, spokes); diff != "" {
		t.Errorf("spokes of hub-use1 (-want +got):\n%s", diff)
	}
	var under []string
	for _, c := range f.ClustersUnder(f.Config.Find([]string{"production"})) {
		under = append(under, c.Name)
	}
	if diff := cmp.Diff([]string{"hub-use1", "spoke-1"}, under); diff != "" {
		t.Errorf("clusters under production (-want +got):\n%s", diff)
	}
	for c, want := range map[*fleet.Cluster]string{hub: "826fa76d08fc2ce87c863196e52d5a4fa9259a82", spoke1: "v1.4.0", spoke2: "main"} {
		if got := f.ClusterRevision(c); got != want {
			t.Errorf("revision of %s = %q, want %q", c.Name, got, want)
		}
	}
}

func TestInventoryIsOptional(t *testing.T) {
	f, err := fleet.Load(fleetFS(inventoryConfig, nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Clusters) != 0 {
		t.Errorf("clusters = %v, want none", f.ClusterNames())
	}
}

func TestInventoryErrors(t *testing.T) {
	const hub = "type: hub\ntarget: production/us-east1\n"
	tests := []struct {
		name  string
		files map[string]string
		want  []string // substrings of the error, in order
	}{
		{"unknown target names the closest", map[string]string{"a.yaml": "type: hub\ntarget: production/us-east\n"},
			[]string{`target: unknown target "production/us-east"`, "config/clusters/a.yaml:2:9", `did you mean "production/us-east1"?`}},
		{"a target above the last dimension is unknown", map[string]string{"a.yaml": "type: hub\ntarget: production\n"},
			[]string{`unknown target "production"`, "config/clusters/a.yaml:2:9"}},
		{"unknown cluster type", map[string]string{"a.yaml": "type: workloads\ntarget: production/us-east1\n"},
			[]string{`type: unknown cluster type "workloads"`, "a.yaml:1:7", `did you mean "workload"?`}},
		{"missing type", map[string]string{"a.yaml": "target: production/us-east1\n"},
			[]string{"missing key type", "config/clusters/a.yaml:1:1"}},
		{"unknown key", map[string]string{"a.yaml": hub + "severs: https://x\n"},
			[]string{"severs: unknown key", "a.yaml:3:1", `did you mean "server"?`}},
		{"name differs from the file name", map[string]string{"a.yaml": "name: b\n" + hub},
			[]string{`name: name "b" does not match the file name a.yaml`, "a.yaml:1:7"}},
		{"duplicate names in two directories", map[string]string{"t1/a.yaml": hub, "t2/a.yaml": hub},
			[]string{`cluster "a" is declared twice`, "config/clusters/t2/a.yaml:1:1", "config/clusters/t1/a.yaml:1:1"}},
		{"a name that is no DNS label", map[string]string{"A_b.yaml": hub},
			[]string{`cluster name "A_b"`, "config/clusters/A_b.yaml:1:1"}},
		{"unknown hub", map[string]string{"hub-use1.yaml": hub, "s.yaml": "type: workload\ntarget: production/us-east1\nserver: https://s:6443\nhub: hub-use\n"},
			[]string{`hub: unknown hub "hub-use"`, "config/clusters/s.yaml:4:6", `did you mean "hub-use1"?`}},
		{"a hub managed by a hub", map[string]string{
			"h1.yaml": hub, "h2.yaml": hub + "server: https://h2:6443\nhub: h1\n", "s.yaml": hub + "server: https://s:6443\nhub: h2\n"},
			[]string{"hub h2 is itself managed by hub h1", "config/clusters/s.yaml:4:6", "config/clusters/h2.yaml:4:6"}},
		{"its own hub", map[string]string{"a.yaml": hub + "server: https://a:6443\nhub: a\n"},
			[]string{"hub: a cluster cannot be its own hub", "a.yaml:4:6"}},
		{"a hub without server", map[string]string{"h.yaml": hub, "s.yaml": hub + "hub: h\n"},
			[]string{"cluster s is managed by hub h but has no server", "s.yaml:3:6"}},
		{"a server without hub", map[string]string{"a.yaml": hub + "server: https://a:6443\n"},
			[]string{"server: server is set but no hub manages the cluster", "a.yaml:3:9"}},
		{"a server that is no URL", map[string]string{"a.yaml": hub + "server: 10.0.0.1:6443\n"},
			[]string{`server: "10.0.0.1:6443" is not an http(s) URL`, "a.yaml:3:9"}},
		{"two spokes with one server", map[string]string{"h.yaml": hub,
			"s1.yaml": hub + "server: https://s:6443\nhub: h\n", "s2.yaml": hub + "server: https://s:6443/\nhub: h\n"},
			[]string{"clusters s1 and s2 have the same server on hub h", "s2.yaml:3:9", "s1.yaml:3:9"}},
		{"a label set by strata", map[string]string{"a.yaml": hub + "labels: {environment: prod}\n"},
			[]string{"labels.environment: label environment is set by strata", "a.yaml:3:10"}},
		{"an invalid label value", map[string]string{"a.yaml": hub + "labels: {tier: gold class}\n"},
			[]string{`labels.tier: "gold class" is not a valid label value`, "a.yaml:3:16"}},
		{"an invalid annotation key", map[string]string{"a.yaml": hub + "annotations: {bad key: x}\n"},
			[]string{`"bad key" is not a valid annotation key`, "a.yaml:3:15"}},
		{"an external secret without hub", map[string]string{"a.yaml": hub + "externalSecret: {store: s, key: k}\n"},
			[]string{"externalSecret registers a cluster on its hub, but no hub manages a", "a.yaml:3:17"}},
		{"an external secret without key", map[string]string{"h.yaml": hub, "a.yaml": hub + "server: https://a:6443\nhub: h\nexternalSecret: {store: s}\n"},
			[]string{"externalSecret: missing key key", "a.yaml:5:17"}},
		{"a project that is no AppProject name", map[string]string{"a.yaml": hub + "project: Tenant_1\n"},
			[]string{`project: project "Tenant_1" is not a valid AppProject name`, "a.yaml:3:10", "the name of an Argo CD AppProject"}},
		{"a project that is no string", map[string]string{"a.yaml": hub + "project: [a]\n"},
			[]string{"project: expected a string, got a list", "a.yaml:3:10"}},
		{"an empty project", map[string]string{"a.yaml": hub + "project: ''\n"},
			[]string{"project: name is empty", "a.yaml:3:10"}},
		{"the project annotation set by hand", map[string]string{"a.yaml": hub + "annotations: {strata.io/project: t1}\n"},
			[]string{`annotations."strata.io/project": annotation strata.io/project is set by strata`, "a.yaml:3:15", "write project:"}},
		{"a stray .yml file", map[string]string{"a.yml": hub},
			[]string{"stray file in the cluster inventory", "config/clusters/a.yml", "rename it a.yaml"}},
		{"a file that is not a mapping", map[string]string{"a.yaml": "- hub\n"},
			[]string{"expected a mapping, got a list", "config/clusters/a.yaml:1:1"}},
		{"duplicate keys", map[string]string{"a.yaml": hub + "type: hub\n"},
			[]string{"config/clusters/a.yaml:3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := fleet.Load(fleetFS(inventoryConfig, tt.files))
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			msg := err.Error()
			rest := msg
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("error does not contain %q (in order):\n%s", w, msg)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

// TestInventoryProject: a cluster's project is its file's, else its
// type's in config.yaml, else default; each remembers where it was set.
func TestInventoryProject(t *testing.T) {
	config := strings.Replace(inventoryConfig, "cluster_types: [hub, workload]", "cluster_types:\n  - hub\n  - {name: workload, project: tenants}", 1)
	f, err := fleet.Load(fleetFS(config, map[string]string{
		"hub.yaml":     "type: hub\ntarget: production/us-east1\n",
		"spoke-1.yaml": "type: workload\ntarget: production/eu-west1\nserver: https://10.0.0.1:6443\nhub: hub\nproject: tenant-a\n",
		"spoke-2.yaml": "type: workload\ntarget: integration/us-east1\nserver: https://10.0.0.2:6443\nhub: hub\n",
	}))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ cluster, project, pos string }{
		{"hub", "default", ""},
		{"spoke-1", "tenant-a", "config/clusters/spoke-1.yaml:5:10"},
		{"spoke-2", "tenants", "config/config.yaml:16:31"},
	} {
		c := f.Cluster(tt.cluster)
		pos := ""
		if c.ProjectPos.File != "" {
			pos = c.ProjectPos.String()
		}
		if c.Project != tt.project || pos != tt.pos {
			t.Errorf("%s: project %q set at %q, want %q at %q", tt.cluster, c.Project, pos, tt.project, tt.pos)
		}
	}

	bad := strings.Replace(inventoryConfig, "cluster_types: [hub, workload]", "cluster_types: [{name: hub, project: -hub}, workload]", 1)
	_, err = fleet.Load(fleetFS(bad, nil))
	if err == nil || !strings.Contains(err.Error(), `cluster_types.0.project: name "-hub" must start with a letter or a digit`) || !strings.Contains(err.Error(), "config/config.yaml:14:38") {
		t.Errorf("Load = %v, want the bad project at its line", err)
	}
}
