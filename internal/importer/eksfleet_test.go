package importer_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/strata-fleet/strata/internal/importer"
	"github.com/strata-fleet/strata/internal/testing/goldenfile"
)

// TestEKSFleet imports a repository shaped as
// markoskandylis/eks-fleet-management: a releases file, member files per
// cluster under the hub, the hub's ApplicationSets over the cluster
// Secrets. Each target's objects are the Applications the ApplicationSets
// give for its member's Secret, and strata render must give them back
// (importFleet).
func TestEKSFleet(t *testing.T) {
	res := importFleet(t, "eks-fleet", os.DirFS("testdata/eks-fleet/fleet"), importer.Options{Dir: "."})
	goldenfile.Check(t, "testdata/eks-fleet/fleet.golden", golden(res), *update)

	apps := map[string][]string{}
	for _, tg := range res.Source.Targets {
		for _, o := range tg.Objects {
			apps[tg.ID()] = append(apps[tg.ID()], o.Name)
		}
	}
	want := map[string][]string{
		"control-plane/np/hub-cluster-np":   {"cluster-addons-hub-cluster-np-default", "cluster-monitoring-hub-cluster-np-default"},
		"tenant1/np/spoke-dev-workload1":    {"cluster-addons-spoke-dev-workload1-release1", "cluster-monitoring-spoke-dev-workload1-default"},
		"tenant1/np/spoke-dev-workload2":    {"cluster-monitoring-spoke-dev-workload2-release2"},
		"tenant1/live/spoke-live-workload1": {"cluster-addons-spoke-live-workload1-default", "cluster-monitoring-spoke-live-workload1-default"},
	}
	if d := cmp.Diff(want, apps); d != "" {
		t.Errorf("the Applications per cluster Secret (-want +got):\n%s", d)
	}
}

// TestEKSFleetEvaluation checks one Application the evaluator makes
// against the one worked out by hand from the controller's rules.
func TestEKSFleetEvaluation(t *testing.T) {
	f, _ := importer.Lookup("eks-fleet")
	src, err := f.Read(os.DirFS("testdata/eks-fleet/fleet"), importer.Options{Dir: "."})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("testdata/eks-fleet/spoke-dev-workload1-addons.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	if err := sigsyaml.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(src.Targets, func(tg *importer.Target) bool { return tg.ID() == "tenant1/np/spoke-dev-workload1" })
	if i < 0 {
		t.Fatal("no target tenant1/np/spoke-dev-workload1")
	}
	for _, o := range src.Targets[i].Objects {
		if o.Name != "cluster-addons-spoke-dev-workload1-release1" {
			continue
		}
		out, err := yaml.Marshal(o.Doc)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if err := sigsyaml.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("the evaluated Application differs from the one worked out by hand (-hand +evaluated):\n%s", d)
		}
		return
	}
	t.Fatal("no Application cluster-addons-spoke-dev-workload1-release1")
}

func TestEKSFleetErrors(t *testing.T) {
	fixture := func(name string) string {
		data, err := os.ReadFile("testdata/eks-fleet/fleet/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	const member = "fleet/fleet-bootstrap/fleet-members/hub/hub.yaml"
	const releases = "fleet/bootstrap/versions/applicationSets.yaml"
	const appset = "fleet/bootstrap/hub/addons.yaml"
	good := map[string]string{
		releases: fixture(releases),
		member:   "tenant: control-plane\nenvironment: np\nclusterName: hub\nlabels: {enable_addons: \"true\"}\nannotations: {addons_repo_basepath: addons/control-plane, addons_repo_url: u, addons_repo_revision: main, aws_account_id: \"1\", aws_region: r}\n",
		appset:   fixture("fleet/bootstrap/hub-cluster-np/addons.yaml"),
	}
	tests := []struct {
		name, file, content, want string
	}{
		{"release without type", releases, "releases:\n  addons:\n    - chartRepoRevision: main\n",
			"releases.addons.0: a release needs a type\n    fleet/bootstrap/versions/applicationSets.yaml:3:7"},
		{"release twice", releases, "releases:\n  addons:\n    - type: a\n    - type: a\n",
			"releases.addons.1: a second release of type \"a\" (the ApplicationSets would make two Applications of one name)\n    fleet/bootstrap/versions/applicationSets.yaml:4:7\n    fleet/bootstrap/versions/applicationSets.yaml:3:0"},
		{"member without cluster", member, "tenant: t\nenvironment: np\n",
			"missing key clusterName\n    fleet/fleet-bootstrap/fleet-members/hub/hub.yaml:1:1\n    a member file names its cluster's tenant, environment and clusterName"},
		{"label not a string", member, "tenant: t\nenvironment: np\nclusterName: hub\nlabels:\n  enable_addons: true\n",
			"labels.enable_addons: not a string (a Secret's labels are strings: quote it)\n    fleet/fleet-bootstrap/fleet-members/hub/hub.yaml:5:18"},
		{"missing key in a template", member, "tenant: t\nenvironment: np\nclusterName: hub\nlabels: {enable_addons: \"true\"}\n",
			"template for cluster hub: template: ApplicationSet:1:28: executing \"ApplicationSet\" at <.metadata.annotations>: map has no entry for key \"annotations\"\n    fleet/bootstrap/hub/addons.yaml:4"},
		{"a generator strata does not evaluate", appset, "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: s}\nspec:\n  goTemplate: true\n  generators:\n    - scmProvider: {}\n",
			"spec.generators.0: generator scmProvider: strata import evaluates the clusters, git (files), list and matrix generators only\n    fleet/bootstrap/hub/addons.yaml:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{}
			for k, v := range good {
				files[k] = v
			}
			files[tt.file] = tt.content
			f, _ := importer.Lookup("eks-fleet")
			_, err := f.Read(mapFS(files), importer.Options{Dir: "."})
			if err == nil || !strings.Contains(strings.TrimSpace(err.Error()), tt.want) {
				t.Errorf("error\n%v\nwant\n%s", err, tt.want)
			}
		})
	}
}
