package hydrate

import (
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"
)

// Object is one Kubernetes object a source builds: its identity and its
// YAML (keys sorted, as sigs.k8s.io/yaml writes them, so that two builds
// compare by content, not by layout).
type Object struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	YAML      []byte `json:"-"`
}

// Key names the object: Kind namespace/name (Kind name without a
// namespace).
func (o Object) Key() string {
	if o.Namespace == "" {
		return o.Kind + " " + o.Name
	}
	return o.Kind + " " + o.Namespace + "/" + o.Name
}

// decodeObject decodes one YAML document of file; nil for an empty one.
func decodeObject(file string, doc []byte) (*Object, error) {
	var m map[string]any
	if err := yaml.Unmarshal(doc, &m); err != nil {
		return nil, err
	}
	if len(m) == 0 {
		return nil, nil
	}
	data, err := yaml.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	o := &Object{YAML: data}
	o.Kind, _ = m["kind"].(string)
	if md, ok := m["metadata"].(map[string]any); ok {
		o.Name, _ = md["name"].(string)
		o.Namespace, _ = md["namespace"].(string)
	}
	return o, nil
}

// decodeStream decodes the YAML documents of a file of manifests.
func decodeStream(file string, data []byte) ([]Object, error) {
	var out []Object
	for _, doc := range strings.Split("\n"+string(data), "\n---") {
		o, err := decodeObject(file, []byte(doc))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if o != nil {
			out = append(out, *o)
		}
	}
	return out, nil
}
