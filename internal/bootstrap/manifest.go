package bootstrap

import (
	"bytes"
	"fmt"

	"gopkg.in/yaml.v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Manifest writes the bundle's objects as a YAML stream for
// kubectl apply -f -, each document headed by a comment that says what it is.
func Manifest(b *Bundle) ([]byte, error) {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# strata bootstrap %s (%s model): apply to %s\n", b.Cluster, b.Model, applyTarget(b))
	for _, o := range b.Objects {
		fmt.Fprintf(&buf, "---\n# %s\n", purpose(b, o))
		enc := yaml.NewEncoder(&buf)
		enc.SetIndent(2)
		if err := enc.Encode(o.Object); err != nil {
			return nil, fmt.Errorf("encoding %s: %w", describe(o), err)
		}
		if err := enc.Close(); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

func applyTarget(b *Bundle) string {
	if b.ApplyTo == b.Cluster {
		return "the cluster itself"
	}
	return "its hub, " + b.ApplyTo
}

// describe names an object as kubectl does: kind/namespace/name.
func describe(o *unstructured.Unstructured) string {
	if o.GetNamespace() == "" {
		return o.GetKind() + "/" + o.GetName()
	}
	return o.GetKind() + "/" + o.GetNamespace() + "/" + o.GetName()
}

// purpose says what an object of a bundle is for.
func purpose(b *Bundle, o *unstructured.Unstructured) string {
	switch o.GetKind() {
	case "Namespace":
		return "Argo CD's namespace"
	case "Secret":
		if b.Model == Central {
			return "the cluster secret registering " + b.Cluster + " on " + b.ApplyTo + " (data: name, server, config with its credentials)"
		}
		return "the cluster identity secret (data: name, server, config), read by ApplicationSets' cluster generators"
	case "ExternalSecret":
		return "makes the cluster secret registering " + b.Cluster + " on " + b.ApplyTo + " from the secret store"
	case "ApplicationSet":
		switch {
		case b.Plain && o.GetName() == b.Root:
			return "the root: makes the Application " + o.GetName() + " when the cluster's directory of plain manifests is at the branch, that directory at revision " + b.Revision
		case b.Plain:
			return "the hub's root ApplicationSet: per spoke of this cluster type whose directory of plain manifests is at the branch, makes its root Application, that directory at the branch"
		case o.GetName() == b.Root:
			return "the root: reads the cluster's rendered values.yaml at the branch and makes the Application " + o.GetName() + ", its rendered/ directory at the revision pinned there"
		}
		return "the hub's root ApplicationSet: per spoke of this cluster type, reads its rendered values.yaml at the branch and makes its root Application at the revision pinned there"
	case "Application":
		if o.GetName() == b.Root {
			return "the root: the cluster's rendered/ directory at the revision pinned when it is applied"
		}
		return "Argo CD's self-management Application"
	case "AppProject":
		return "a project the root objects name, as the fleet renders it for this Argo CD: applied first so that they can sync; the root manages it from then on"
	}
	return describe(o)
}
