//go:build linux

package e2e

import (
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/strata-fleet/strata/internal/importer"
)

// eksFixture is the EKS fleet the importer's tests import.
const eksFixture = "../importer/testdata/eks-fleet/fleet"

// TestE2EImportEKSFleet: the Applications strata import eks-fleet
// evaluates for each cluster Secret, and so renders per cluster (the
// import's own check), are those Argo CD's ApplicationSet controller
// makes. The fleet of markoskandylis/eks-fleet-management's shape that
// the importer's tests use is pushed to the Git server; its member files
// become cluster Secrets on the hub and its ApplicationSets are applied
// there; every Application the controller generates is compared, field by
// field, with the import's.
func TestE2EImportEKSFleet(t *testing.T) {
	e := Start(t, Options{OwnFleet: true})
	defer e.Done()
	mark := e.Mark()

	const upstream = "https://github.com/example-org/eks-fleet"
	err := fs.WalkDir(os.DirFS(eksFixture), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(filepath.Join(eksFixture, p))
		if err != nil {
			return err
		}
		// The ApplicationSets read the releases file from the Git server.
		e.Repo.WriteFile(p, strings.ReplaceAll(string(data), upstream, e.Repo.URL))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	e.Commit("the EKS fleet, before strata")

	f, err := importer.Lookup("eks-fleet")
	if err != nil {
		t.Fatal(err)
	}
	src, err := f.Read(os.DirFS(e.Repo.Dir), importer.Options{Dir: "."})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]any{}
	for _, tg := range src.Targets {
		for _, o := range tg.Objects {
			var m map[string]any
			data, err := yaml.Marshal(o.Doc)
			if err != nil {
				t.Fatal(err)
			}
			if err := sigsyaml.Unmarshal(data, &m); err != nil {
				t.Fatal(err)
			}
			want[o.Name] = compared(m)
		}
	}
	if len(want) < 5 {
		t.Fatalf("the import evaluates %d Applications, want the fixture's 7", len(want))
	}
	r := e.MustStrata("import", "eks-fleet", e.Repo.Dir, "--into", t.TempDir())
	if !strings.Contains(r.Stdout, "checked: strata render and Argo CD's render of its output give the source's objects") {
		t.Errorf("strata import eks-fleet: want its check, got\n%s", r.Stdout)
	}
	mark("import the EKS fleet (evaluated in process)")

	e.applyMemberSecrets(src)
	e.applyAppSets("fleet/bootstrap/hub-cluster-np")
	var got map[string]map[string]any
	e.waitFor(func() bool {
		got = e.generatedApps()
		return len(got) >= len(want)
	}, e.refreshAppSets, func() {
		t.Fatalf("the ApplicationSet controller made %d of the %d Applications: %v", len(got), len(want), mapsKeys(got))
	})
	mark("the ApplicationSet controller generates the Applications")

	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the Applications of strata import eks-fleet differ from the ApplicationSet controller's (-import +controller):\n%s", d)
	}
}

// compared is what the comparison reads of an Application: name,
// namespace, labels, annotations, finalizers and spec.
func compared(app map[string]any) map[string]any {
	md, _ := app["metadata"].(map[string]any)
	out := map[string]any{"spec": app["spec"]}
	for _, k := range []string{"name", "namespace", "labels", "annotations", "finalizers"} {
		if v, ok := md[k]; ok {
			out[k] = v
		}
	}
	return out
}

// applyMemberSecrets writes each member's cluster Secret on the hub, as the
// fleet-secret chart and Terraform do: its labels (tenant and environment
// among them) and annotations. A member without server gets one of its
// own (Argo CD needs one; the fixture's templates do not read it).
func (e *Env) applyMemberSecrets(src *importer.Source) {
	e.t.Helper()
	for _, tg := range src.Targets {
		data, err := os.ReadFile(filepath.Join(e.Repo.Dir, tg.Dir))
		if err != nil {
			e.t.Fatal(err)
		}
		var m struct {
			Tenant, Environment, ClusterName, Server string
			Labels, Annotations                      map[string]string
		}
		if err := sigsyaml.Unmarshal(data, &m); err != nil {
			e.t.Fatal(err)
		}
		labels := map[string]string{"argocd.argoproj.io/secret-type": "cluster", "tenant": m.Tenant, "environment": m.Environment}
		for k, v := range m.Labels {
			labels[k] = v
		}
		if m.Server == "" {
			m.Server = "https://" + m.ClusterName + ".example.com"
		}
		s := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: "cluster-" + m.ClusterName, Namespace: Namespace, Labels: labels, Annotations: m.Annotations},
			StringData: map[string]string{"name": m.ClusterName, "server": m.Server, "config": `{"tlsClientConfig":{"insecure":true}}`},
		}
		ctx, cancel := e.ctx()
		_, err = e.Hub.Kube.CoreV1().Secrets(Namespace).Create(ctx, s, metav1.CreateOptions{})
		cancel()
		if err != nil {
			e.t.Fatalf("the cluster Secret of %s: %v", m.ClusterName, err)
		}
	}
}

// applyAppSets applies the ApplicationSets of dir (of the repository) on
// the hub.
func (e *Env) applyAppSets(dir string) {
	e.t.Helper()
	for _, file := range e.Repo.Files(dir) {
		var u unstructured.Unstructured
		if err := sigsyaml.Unmarshal([]byte(e.Repo.ReadFile(file)), &u.Object); err != nil {
			e.t.Fatalf("%s: %v", file, err)
		}
		if u.GetKind() != "ApplicationSet" {
			continue
		}
		ctx, cancel := e.ctx()
		_, err := e.Dyn.Resource(appSetGVR).Namespace(Namespace).Create(ctx, &u, metav1.CreateOptions{})
		cancel()
		if err != nil {
			e.t.Fatalf("%s: %v", path.Base(file), err)
		}
	}
}

// generatedApps lists the hub's Applications that an ApplicationSet owns,
// as compared reads them.
func (e *Env) generatedApps() map[string]map[string]any {
	ctx, cancel := e.ctx()
	defer cancel()
	list, err := e.Dyn.Resource(appGVR).Namespace(Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		e.t.Logf("listing the Applications: %v", err)
		return nil
	}
	out := map[string]map[string]any{}
	for _, u := range list.Items {
		if !slices.ContainsFunc(u.GetOwnerReferences(), func(r metav1.OwnerReference) bool { return r.Kind == "ApplicationSet" }) {
			continue
		}
		// As JSON has it: the import's side went through YAML to JSON too.
		data, err := json.Marshal(u.Object)
		if err != nil {
			e.t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			e.t.Fatal(err)
		}
		out[u.GetName()] = compared(m)
	}
	return out
}

func mapsKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
