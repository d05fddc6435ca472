package importer_test

import (
	"io/fs"
	"os"
	"path"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"

	"github.com/strata-fleet/strata/internal/importer"
)

// secretsFleet is testdata/eks-fleet with its member files as the
// repository writes them: no member file of the hub (its Secret is given,
// as Terraform writes it), the spokes' flat keys, which an ApplicationSet
// of fleet/fleet-bootstrap/ hands a chart that writes the cluster Secret
// (an ExternalSecret), with value files of the tree
// (testdata/eks-fleet-secrets/fleet, laid over it).
func secretsFleet(t *testing.T) (fstest.MapFS, importer.Options) {
	t.Helper()
	m := fstest.MapFS{}
	for _, root := range []string{"testdata/eks-fleet/fleet", "testdata/eks-fleet-secrets/fleet"} {
		err := fs.WalkDir(os.DirFS(root), ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(path.Join(root, p))
			m[p] = &fstest.MapFile{Data: data}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	delete(m, "fleet/fleet-bootstrap/fleet-members/hub-cluster-np/hub-cluster-np.yaml")
	hub, err := os.ReadFile("testdata/eks-fleet-secrets/hub-secret.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return m, importer.Options{Dir: ".", ClusterSecrets: []importer.SecretFile{{File: "hub-secret.yaml", Data: hub}}}
}

// TestEKSFleetDerivedSecrets imports the fleet whose spokes' Secrets the
// repository's chart writes: each Secret is derived as the chart writes it,
// so each cluster gets the Applications it gets with the Secrets stated by
// hand (TestEKSFleet's), and the inventory holds those labels and
// annotations. A value file of the chart at a path no Application names
// is a fault, reported.
func TestEKSFleetDerivedSecrets(t *testing.T) {
	fsys, opts := secretsFleet(t)
	res := importFleet(t, "eks-fleet", fsys, opts)
	stated := importFleet(t, "eks-fleet", os.DirFS("testdata/eks-fleet/fleet"), importer.Options{Dir: "."})
	objects := func(r *importer.Result) map[string]map[string]string {
		out := map[string]map[string]string{}
		for _, tg := range r.Source.Targets {
			out[tg.ID()] = map[string]string{}
			for _, o := range tg.Objects {
				data, err := yaml.Marshal(o.Doc)
				if err != nil {
					t.Fatal(err)
				}
				out[tg.ID()][o.Name] = string(data)
			}
		}
		return out
	}
	if d := cmp.Diff(objects(stated), objects(res)); d != "" {
		t.Errorf("the Applications with derived Secrets differ from those with the Secrets stated (-stated +derived):\n%s", d)
	}
	for _, c := range []string{"hub-cluster-np", "spoke-dev-workload1", "spoke-dev-workload2", "spoke-live-workload1"} {
		n := "config/clusters/" + c + ".yaml"
		var want, got map[string]any
		if err := yaml.Unmarshal(stated.Files[n], &want); err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(res.Files[n], &got); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: (-stated +derived):\n%s", n, d)
		}
	}
	var report []string
	for _, f := range res.Findings {
		report = append(report, f.String())
		if strings.HasPrefix(f.Reason, "never read") && !f.Fault {
			t.Errorf("a value file never read is a fault of the repository: %s", f)
		}
	}
	text := strings.Join(report, "\n")
	for _, want := range []string{
		"tenant1/np/spoke-dev-workload1: its cluster Secret's labels and annotations are those the Application member-secret-spoke-dev-workload1 of the ApplicationSet at fleet/fleet-bootstrap/member-secrets.yaml:3 writes",
		"tenant1/np/spoke-dev-workload1: its cluster Secret also takes labels {{ .extraLabels }} from the external store at run time",
		"never read: a value file of chart charts/cluster-secret (.../secret/values.yaml) at a path that no Application of the ApplicationSet at fleet/fleet-bootstrap/member-secrets.yaml:3 names for any member (addons/tenants/tenant1/environments/np/secret/values.yaml)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the report lacks %q:\n%s", want, text)
		}
	}
}

func TestEKSFleetSecretErrors(t *testing.T) {
	tests := []struct{ name, secret, want string }{
		{"not a Secret", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n",
			"not a cluster Secret (apiVersion: v1, kind: Secret)\n    hub-secret.yaml:1:1"},
		{"no cluster of the fleet", "apiVersion: v1\nkind: Secret\nmetadata: {name: other}\n",
			"the Secret of cluster other, which is neither a member (fleet/fleet-bootstrap/fleet-members/<hub>/<cluster>.yaml) nor a hub (a directory of it)\n    hub-secret.yaml:1"},
		{"a hub without its tenant", "apiVersion: v1\nkind: Secret\nmetadata: {name: hub-cluster-np, labels: {environment: np}}\n",
			"metadata.labels.tenant: the hub hub-cluster-np's Secret has no label tenant: its target is tenants/environments/clusters\n    hub-secret.yaml:1"},
		{"twice", "apiVersion: v1\nkind: Secret\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: a}\n",
			"a second Secret of cluster a\n    hub-secret.yaml:5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys, opts := secretsFleet(t)
			opts.ClusterSecrets[0].Data = []byte(tt.secret)
			f, _ := importer.Lookup("eks-fleet")
			_, err := f.Read(fsys, opts)
			if err == nil || !strings.Contains(strings.TrimSpace(err.Error()), tt.want) {
				t.Errorf("error\n%v\nwant\n%s", err, tt.want)
			}
		})
	}
}

// TestEKSFleetPlainWordAnnotation checks that an annotation whose value is
// a plain word (resources) is not written as its template where the word
// stands in a string the ApplicationSet wrote literally (the finalizer
// resources-finalizer.argocd.argoproj.io): that string would follow a
// change of the annotation, which the repository's never does.
func TestEKSFleetPlainWordAnnotation(t *testing.T) {
	m := membersEdited(t, func(member string) string {
		return strings.Replace(member, "annotations:\n", "annotations:\n  resources_repo_basepath: resources\n", 1)
	})
	res := importFleet(t, "eks-fleet", m, importer.Options{Dir: "."})
	if !strings.Contains(string(res.Files["config/clusters/spoke-dev-workload1.yaml"]), "resources_repo_basepath: resources") {
		t.Fatal("the fixture's members lack the annotation the test is about")
	}
	for name, data := range res.Files {
		if strings.Contains(string(data), "annotations.resources_repo_basepath") {
			t.Errorf("%s writes the plain word resources as the annotation's template:\n%s", name, data)
		}
	}
}

// membersEdited is testdata/eks-fleet/fleet with each member file edited.
func membersEdited(t *testing.T, edit func(string) string) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	root := "testdata/eks-fleet/fleet"
	err := fs.WalkDir(os.DirFS(root), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path.Join(root, p))
		if strings.Contains(p, "fleet-members/") {
			data = []byte(edit(string(data)))
		}
		m[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestEKSFleetWordInTemplate checks that a word written as its template is
// not replaced again inside another's template: the environment cluster
// stands as a word in {{ .Values.cluster.tenant }}, which the tenant's
// replacement wrote first.
func TestEKSFleetWordInTemplate(t *testing.T) {
	m := membersEdited(t, func(member string) string {
		return strings.Replace(member, "environment: np\n", "environment: cluster\n", 1)
	})
	res := importFleet(t, "eks-fleet", m, importer.Options{Dir: "."})
	if _, ok := res.Files["config/clusters/spoke-dev-workload1.yaml"]; !ok || !strings.Contains(string(res.Files["config/clusters/spoke-dev-workload1.yaml"]), "tenant1/cluster/spoke-dev-workload1") {
		t.Fatalf("the fixture's spoke is not in environment cluster:\n%s", res.Files["config/clusters/spoke-dev-workload1.yaml"])
	}
}
