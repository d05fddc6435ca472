package bootstrap

import (
	"encoding/base64"
	"encoding/json"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/strata-fleet/strata/internal/fleet"
)

// ClusterConfig is the config of an Argo CD cluster secret: how Argo CD
// authenticates to the cluster (Argo CD's v1alpha1.ClusterConfig, as JSON).
type ClusterConfig struct {
	Username           string              `json:"username,omitempty"`
	Password           string              `json:"password,omitempty"`
	BearerToken        string              `json:"bearerToken,omitempty"`
	TLSClientConfig    TLSClientConfig     `json:"tlsClientConfig"`
	ExecProviderConfig *ExecProviderConfig `json:"execProviderConfig,omitempty"`
}

// TLSClientConfig is the TLS part of a ClusterConfig; the data fields hold
// PEM, base64-encoded in JSON.
type TLSClientConfig struct {
	Insecure   bool   `json:"insecure"`
	ServerName string `json:"serverName,omitempty"`
	CAData     []byte `json:"caData,omitempty"`
	CertData   []byte `json:"certData,omitempty"`
	KeyData    []byte `json:"keyData,omitempty"`
}

// ExecProviderConfig runs a command for credentials, as a kubeconfig's exec
// plugin does (aws eks get-token, gke-gcloud-auth-plugin, ...).
type ExecProviderConfig struct {
	Command     string            `json:"command,omitempty"`
	Args        []string          `json:"args,omitempty"`
	Env         map[string]string `json:"env,omitempty"`
	APIVersion  string            `json:"apiVersion,omitempty"`
	InstallHint string            `json:"installHint,omitempty"`
}

// inClusterConfig is the config of the cluster Argo CD runs in.
var inClusterConfig = ClusterConfig{}

// identityLabels are the labels of a cluster's secret: the secret type, the
// cluster type, the node of every dimension, the hub of a spoke, and the
// cluster's own labels.
func (b *builder) identityLabels(c *fleet.Cluster) map[string]any {
	labels := map[string]any{}
	for k, v := range c.Labels {
		labels[k] = v
	}
	labels[fleet.SecretTypeLabel] = "cluster"
	labels[fleet.ClusterTypeLabel] = c.Type
	path := c.Target.Path()
	for i, d := range b.f.Config.Dimensions {
		labels[d.Singular] = path[i]
	}
	if c.Hub != "" {
		labels[fleet.HubLabel] = c.Hub
	}
	return labels
}

// identityAnnotations name the repository, the revision the root objects
// follow (the branch: pins reach Argo CD through the rendered tree there),
// the cluster and its project (which a hub's root ApplicationSet gives the
// spoke's root), with the cluster's own annotations.
func (b *builder) identityAnnotations(c *fleet.Cluster) map[string]any {
	ann := map[string]any{}
	for k, v := range c.Annotations {
		ann[k] = v
	}
	ann[RepoAnnotation] = b.f.Config.Repository.URL
	ann[RevisionAnnotation] = BranchRevision(b.f)
	ann[ClusterNameAnnotation] = c.Name
	ann[fleet.ProjectAnnotation] = c.Project
	return ann
}

// identitySecret is the Argo CD cluster secret of c, reaching it at server
// with config.
func (b *builder) identitySecret(c *fleet.Cluster, server string, config ClusterConfig) *unstructured.Unstructured {
	cfg, err := json.Marshal(config)
	if err != nil {
		panic(err) // plain data: cannot fail
	}
	s := object("v1", "Secret", b.opts.Namespace, c.Name, map[string]any{
		"type": "Opaque",
		"data": map[string]any{
			"name":   b64(c.Name),
			"server": b64(server),
			"config": b64(string(cfg)),
		},
	})
	meta := s.Object["metadata"].(map[string]any)
	meta["labels"] = b.identityLabels(c)
	meta["annotations"] = b.identityAnnotations(c)
	return s
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// externalSecret makes the spoke's cluster secret on the hub from a secret
// store (External Secrets Operator), which holds the cluster's config: no
// credential passes through strata.
func (b *builder) externalSecret(c *fleet.Cluster) *unstructured.Unstructured {
	ref := c.ExternalSecret
	labels := b.identityLabels(c)
	return object("external-secrets.io/v1", "ExternalSecret", b.opts.Namespace, c.Name, map[string]any{
		"spec": map[string]any{
			"refreshInterval": "1h",
			"secretStoreRef":  map[string]any{"kind": ref.StoreKind, "name": ref.Store},
			"target": map[string]any{
				"name":           c.Name,
				"creationPolicy": "Owner",
				"template": map[string]any{
					"engineVersion": "v2",
					"type":          "Opaque",
					"metadata": map[string]any{
						"labels":      labels,
						"annotations": b.identityAnnotations(c),
					},
					"data": map[string]any{
						"name":   c.Name,
						"server": c.Server,
						"config": "{{ .config }}",
					},
				},
			},
			"data": []any{map[string]any{
				"secretKey": "config",
				"remoteRef": remoteRef(ref),
			}},
		},
	})
}

func remoteRef(ref *fleet.ExternalSecretRef) map[string]any {
	r := map[string]any{"key": ref.Key}
	if ref.Property != "" {
		r["property"] = ref.Property
	}
	return r
}
