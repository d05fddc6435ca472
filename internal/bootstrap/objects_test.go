package bootstrap_test

import (
	"encoding/base64"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/strata-fleet/strata/internal/bootstrap"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/render"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ and the examples' rendered/ trees")

// examples are the example fleets this package's tests own.
var examples = []string{"seed-000-regional", "seed-001-hub", "seed-002-tenants", "seed-004-self-managed"}

func exampleDir(name string) string { return filepath.Join("..", "..", "examples", name) }

func exampleFS(t *testing.T, name string) *os.Root {
	t.Helper()
	r, err := os.OpenRoot(exampleDir(name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func loadExample(t *testing.T, name string) *fleet.Fleet {
	t.Helper()
	f, err := fleet.Load(exampleFS(t, name).FS())
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func exampleChart(t *testing.T, name string) *render.Chart {
	t.Helper()
	c, err := render.LoadChart(exampleFS(t, name).FS())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// hubFleet is a fleet with a hub and two spokes: spoke-1 at server, spoke-2
// registered through an ExternalSecret.
func hubFleet(t *testing.T, server string) *fleet.Fleet {
	t.Helper()
	fsys := fstest.MapFS{
		"config/config.yaml": {Data: []byte(`dimensions: [environments, clusters]
repository: {url: https://git.example.com/fleet.git, revision: main}
sequence:
  environments:
    - name: prod
      revision: v1.2.0
      clusters: [hub-1, spoke-1, spoke-2]
cluster_types: [hub, workload]
`)},
		"config/hub/defaults.yaml":            {Data: []byte("applications: {default: {project: default}}\n")},
		"config/hub/argocd/values.yaml":       {Data: []byte("applications: {argocd: {destination: {namespace: argocd}}}\n")},
		"config/workload/defaults.yaml":       {Data: []byte("applications: {default: {project: default}}\n")},
		"config/workload/podinfo/values.yaml": {Data: []byte("applications: {podinfo: {destination: {namespace: podinfo}}}\n")},
		"config/clusters/hub-1.yaml":          {Data: []byte("type: hub\ntarget: prod/hub-1\n")},
		"config/clusters/spoke-1.yaml":        {Data: []byte("type: workload\ntarget: prod/spoke-1\nhub: hub-1\nserver: " + server + "\nlabels: {tier: gold}\n")},
		"config/clusters/spoke-2.yaml": {Data: []byte("type: workload\ntarget: prod/spoke-2\nhub: hub-1\nserver: https://spoke-2:6443\n" +
			"externalSecret: {store: vault, storeKind: SecretStore, key: clusters/spoke-2}\n")},
	}
	f, err := fleet.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func kinds(b *bootstrap.Bundle) []string {
	var out []string
	for _, o := range b.Objects {
		out = append(out, o.GetKind()+"/"+o.GetName())
	}
	return out
}

func TestBuildCentral(t *testing.T) {
	f := hubFleet(t, "https://spoke-1:6443")
	cr := &bootstrap.Credentials{Config: bootstrap.ClusterConfig{BearerToken: "t0ken"}, Source: "test"}
	b, err := bootstrap.Build(f, nil, "spoke-1", bootstrap.Options{Credentials: cr})
	if err != nil {
		t.Fatal(err)
	}
	if b.Model != bootstrap.Central || b.ApplyTo != "hub-1" || b.Revision != "v1.2.0" {
		t.Errorf("bundle = %s to %s at %s, want central to hub-1 at v1.2.0", b.Model, b.ApplyTo, b.Revision)
	}
	if diff := cmp.Diff([]string{"Secret/spoke-1", "ApplicationSet/root-workload"}, kinds(b)); diff != "" {
		t.Errorf("objects (-want +got):\n%s", diff)
	}
	s := b.Objects[0]
	wantLabels := map[string]string{
		"argocd.argoproj.io/secret-type": "cluster", "cluster_type": "workload", "environment": "prod", "cluster": "spoke-1",
		"tier": "gold", "strata.io/hub": "hub-1",
	}
	if diff := cmp.Diff(wantLabels, s.GetLabels()); diff != "" {
		t.Errorf("secret labels (-want +got):\n%s", diff)
	}
	// The secret names the branch the root follows, not the pin: a pin
	// moved later must not need the secret applied again.
	wantAnn := map[string]string{"git_repo": "https://git.example.com/fleet.git", "git_revision": "main", "cluster_name": "spoke-1",
		"strata.io/project": "default"}
	if diff := cmp.Diff(wantAnn, s.GetAnnotations()); diff != "" {
		t.Errorf("secret annotations (-want +got):\n%s", diff)
	}
	data := secretData(t, s)
	if diff := cmp.Diff(map[string]string{"name": "spoke-1", "server": "https://spoke-1:6443",
		"config": `{"bearerToken":"t0ken","tlsClientConfig":{"insecure":false}}`}, data); diff != "" {
		t.Errorf("secret data (-want +got):\n%s", diff)
	}

	t.Run("an ExternalSecret instead of credentials", func(t *testing.T) {
		b, err := bootstrap.Build(f, nil, "spoke-2", bootstrap.Options{})
		if err != nil {
			t.Fatal(err)
		}
		es := b.Objects[0]
		if es.GetKind() != "ExternalSecret" {
			t.Fatalf("first object = %s, want an ExternalSecret", es.GetKind())
		}
		store, _, _ := unstructured.NestedStringMap(es.Object, "spec", "secretStoreRef")
		if diff := cmp.Diff(map[string]string{"kind": "SecretStore", "name": "vault"}, store); diff != "" {
			t.Errorf("store (-want +got):\n%s", diff)
		}
		tmpl, _, _ := unstructured.NestedStringMap(es.Object, "spec", "target", "template", "data")
		if tmpl["server"] != "https://spoke-2:6443" || tmpl["config"] != "{{ .config }}" {
			t.Errorf("template data = %v", tmpl)
		}
		labels, _, _ := unstructured.NestedStringMap(es.Object, "spec", "target", "template", "metadata", "labels")
		if labels["argocd.argoproj.io/secret-type"] != "cluster" || labels["strata.io/hub"] != "hub-1" {
			t.Errorf("template labels = %v", labels)
		}
	})

	t.Run("the hub gets the root ApplicationSet of its spokes' type", func(t *testing.T) {
		b, err := bootstrap.Build(f, nil, "hub-1", bootstrap.Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"Namespace/argocd", "Secret/hub-1", "ApplicationSet/root", "ApplicationSet/root-workload"}
		if diff := cmp.Diff(want, kinds(b)); diff != "" {
			t.Errorf("objects (-want +got):\n%s", diff)
		}
		if len(b.Notes) != 1 || !strings.Contains(b.Notes[0], "no self-management Application") {
			t.Errorf("notes = %q, want one about the self-management Application", b.Notes)
		}
		if data := secretData(t, b.Objects[1]); data["server"] != bootstrap.InClusterServer {
			t.Errorf("the hub's own server = %q, want in-cluster", data["server"])
		}
	})

	t.Run("the root reads the pin from the rendered tree at the branch", func(t *testing.T) {
		b, err := bootstrap.Build(f, nil, "spoke-2", bootstrap.Options{})
		if err != nil {
			t.Fatal(err)
		}
		set := b.Objects[1]
		gens, _, _ := unstructured.NestedSlice(set.Object, "spec", "generators")
		matrix, _, _ := unstructured.NestedSlice(gens[0].(map[string]any), "matrix", "generators")
		git, _, _ := unstructured.NestedMap(matrix[1].(map[string]any), "git")
		want := map[string]any{
			"repoURL":  `{{ index .metadata.annotations "git_repo" }}`,
			"revision": `{{ index .metadata.annotations "git_revision" }}`,
			"files":    []any{map[string]any{"path": `rendered/workload/{{ index .metadata.labels "environment" }}/{{ index .metadata.labels "cluster" }}/values.yaml`}},
		}
		if diff := cmp.Diff(want, git); diff != "" {
			t.Errorf("git generator (-want +got):\n%s", diff)
		}
		source, _, _ := unstructured.NestedMap(set.Object, "spec", "template", "spec", "source")
		if source["path"] != "{{ .path.path }}" || source["targetRevision"] != "{{ .cluster.revision }}" {
			t.Errorf("template source = %v, want the path and revision of the git files generator", source)
		}
		rev, _, _ := unstructured.NestedString(source, "helm", "valuesObject", "cluster", "revision")
		if rev != "{{ .cluster.revision }}" {
			t.Errorf("cluster.revision handed to Argo CD's render = %q", rev)
		}
	})

	t.Run("a cluster running its own Argo CD follows the pin the same way", func(t *testing.T) {
		b, err := bootstrap.Build(f, nil, "hub-1", bootstrap.Options{})
		if err != nil {
			t.Fatal(err)
		}
		root := b.Objects[2]
		gens, _, _ := unstructured.NestedSlice(root.Object, "spec", "generators")
		want := []any{map[string]any{"git": map[string]any{
			"repoURL": "https://git.example.com/fleet.git", "revision": "main",
			"files": []any{map[string]any{"path": "rendered/hub/prod/hub-1/values.yaml"}},
		}}}
		if diff := cmp.Diff(want, gens); diff != "" {
			t.Errorf("generators (-want +got):\n%s", diff)
		}
		cluster, _, _ := unstructured.NestedMap(root.Object, "spec", "template", "spec", "source", "helm", "valuesObject", "cluster")
		wantCluster := map[string]any{"name": "hub-1", "environment": "prod", "cluster": "hub-1", "revision": "{{ .cluster.revision }}"}
		if diff := cmp.Diff(wantCluster, cluster); diff != "" {
			t.Errorf("cluster values (-want +got):\n%s", diff)
		}
	})
}

func secretData(t *testing.T, s *unstructured.Unstructured) map[string]string {
	t.Helper()
	raw, _, _ := unstructured.NestedStringMap(s.Object, "data")
	out := map[string]string{}
	for k, v := range raw {
		d, err := base64.StdEncoding.DecodeString(v)
		if err != nil {
			t.Fatalf("data.%s: %v", k, err)
		}
		out[k] = string(d)
	}
	return out
}

func TestBuildErrors(t *testing.T) {
	f := hubFleet(t, "https://spoke-1:6443")
	cr := &bootstrap.Credentials{Server: "https://elsewhere:6443", Source: "context other"}
	tests := []struct {
		name, cluster string
		opts          bootstrap.Options
		want          string
	}{
		{"an unknown cluster", "spoke-3", bootstrap.Options{}, `unknown cluster "spoke-3" (one of: spoke-1, spoke-2, hub-1)`},
		{"a spoke without credentials", "spoke-1", bootstrap.Options{},
			"registering spoke-1 on its hub hub-1 needs its credentials: --credentials-context CONTEXT (of a kubeconfig) or --token-file FILE, or externalSecret in config/clusters/spoke-1.yaml"},
		{"credentials of another cluster", "spoke-1", bootstrap.Options{Credentials: cr},
			"the credentials (context other) are for https://elsewhere:6443, but config/clusters/spoke-1.yaml says server: https://spoke-1:6443: use the context of cluster spoke-1"},
		{"credentials and an ExternalSecret", "spoke-2", bootstrap.Options{Credentials: &bootstrap.Credentials{}},
			"cluster spoke-2 registers on hub-1 through externalSecret (config/clusters/spoke-2.yaml): give no credentials, or remove externalSecret"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := bootstrap.Build(f, nil, tt.cluster, tt.opts)
			if err == nil || err.Error() != tt.want {
				t.Errorf("Build = %v\nwant %s", err, tt.want)
			}
		})
	}
	t.Run("a repository without repository:", func(t *testing.T) {
		f := hubFleet(t, "https://spoke-1:6443")
		f.Config.Repository = nil
		_, err := bootstrap.Build(f, nil, "hub-1", bootstrap.Options{})
		if err == nil || !strings.Contains(err.Error(), "config/config.yaml declares no repository; add repository: {url:") {
			t.Errorf("Build = %v", err)
		}
	})
}

func TestCredentials(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	kc := write("kubeconfig", `apiVersion: v1
kind: Config
current-context: hub
clusters:
  - name: spoke
    cluster: {server: "https://spoke:6443", certificate-authority-data: Q0EK}
contexts:
  - name: hub
    context: {cluster: spoke, user: admin}
  - name: spoke-eks
    context: {cluster: spoke, user: eks}
users:
  - name: admin
    user: {token: s3cret}
  - name: eks
    user:
      exec:
        apiVersion: client.authentication.k8s.io/v1beta1
        command: aws
        args: [eks, get-token, --cluster-name, spoke]
        env: [{name: AWS_PROFILE, value: fleet}]
`)
	cr, err := bootstrap.CredentialsFromKubeconfig(kc, "")
	if err != nil {
		t.Fatal(err)
	}
	if cr.Server != "https://spoke:6443" || cr.Config.BearerToken != "s3cret" || string(cr.Config.TLSClientConfig.CAData) != "CA\n" {
		t.Errorf("credentials of the current context = %+v", cr)
	}
	cr, err = bootstrap.CredentialsFromKubeconfig(kc, "spoke-eks")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(cr.Config)
	want := `{"tlsClientConfig":{"insecure":false,"caData":"Q0EK"},"execProviderConfig":{"command":"aws","args":["eks","get-token","--cluster-name","spoke"],"env":{"AWS_PROFILE":"fleet"},"apiVersion":"client.authentication.k8s.io/v1beta1"}}`
	if string(got) != want {
		t.Errorf("config = %s\nwant %s", got, want)
	}
	if _, err := bootstrap.CredentialsFromKubeconfig(kc, "nope"); err == nil || err.Error() != `unknown context "nope" of `+kc+` (one of: hub, spoke-eks)` {
		t.Errorf("unknown context: %v", err)
	}
	cr, err = bootstrap.CredentialsFromTokenFile(write("token", "abc\n"), write("ca.pem", "PEM"))
	if err != nil {
		t.Fatal(err)
	}
	if cr.Config.BearerToken != "abc" || string(cr.Config.TLSClientConfig.CAData) != "PEM" || cr.Server != "" {
		t.Errorf("token file credentials = %+v", cr)
	}
	if _, err := bootstrap.CredentialsFromTokenFile(write("empty", "\n"), ""); err == nil || !strings.Contains(err.Error(), "is empty") {
		t.Errorf("empty token: %v", err)
	}
}
