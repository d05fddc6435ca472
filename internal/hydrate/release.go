package hydrate

// ReleaseOf is the release Argo CD renders a Helm source (a source map of
// an Application) as, for the Application called name whose destination
// namespace is ns: its helm block's releaseName, namespace, value files,
// values and parameters.
func ReleaseOf(src map[string]any, name, ns string) Release {
	r := Release{name: name, namespace: ns}
	h, ok := src["helm"].(map[string]any)
	if !ok {
		return r
	}
	if n, _ := h["releaseName"].(string); n != "" {
		r.name = n
	}
	if n, _ := h["namespace"].(string); n != "" {
		r.namespace = n
	}
	if list, ok := h["valueFiles"].([]any); ok {
		for _, f := range list {
			if s, ok := f.(string); ok {
				r.valueFiles = append(r.valueFiles, s)
			}
		}
	}
	r.values, _ = h["values"].(string)
	r.valuesObject, _ = h["valuesObject"].(map[string]any)
	r.ignoreMissingValueFiles, _ = h["ignoreMissingValueFiles"].(bool)
	if list, ok := h["parameters"].([]any); ok {
		for _, it := range list {
			m, _ := it.(map[string]any)
			n, _ := m["name"].(string)
			v, _ := m["value"].(string)
			f, _ := m["forceString"].(bool)
			if n != "" {
				r.parameters = append(r.parameters, helmParameter{name: n, value: v, forceString: f})
			}
		}
	}
	return r
}

// Name is the release's name, Namespace its namespace.
func (r Release) Name() string      { return r.name }
func (r Release) Namespace() string { return r.namespace }
