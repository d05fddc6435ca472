package benchfleet

import (
	"fmt"
	"math/rand/v2"
	"strconv"
)

// Expressions the fleet's values use. Plain ones are resolved by the second
// template pass (per target); escaped ones survive it for Argo CD.
const (
	envExpr      = "{{ .Values.cluster.environment }}"
	sectorExpr   = "{{ .Values.cluster.sector }}"
	regionExpr   = "{{ .Values.cluster.region }}"
	clusterName  = "{{`{{ .Values.cluster.name }}`}}" // rendered as {{ .Values.cluster.name }}
	appSetName   = "{{`{{.name}}`}}"                  // rendered as {{.name}}, for the ApplicationSet controller
	appSetServer = "{{`{{.server}}`}}"
	// projectIDExpr survives both passes and the ApplicationSet's own
	// templating, reaching the target chart as {{ index ... }}.
	projectIDExpr = "{{`{{\"{{\"}} index .metadata.annotations \"fleet.example.com/project-id\" {{\"}}\"}}`}}"
)

// sectionOf names the values.yaml section a component lives in.
func sectionOf(c component) string {
	if c.appSet {
		return "applicationsets"
	}
	return "applications"
}

// baseValues is a component's values.yaml.
func baseValues(c component, r *rand.Rand) *mapping {
	var item *mapping
	if c.appSet {
		item = applicationSet(c, r)
	} else {
		item = application(c, r)
	}
	return m(sectionOf(c), m(c.name, item))
}

func application(c component, r *rand.Rand) *mapping {
	item := &mapping{}
	if r.IntN(3) == 0 {
		item.set("additionalLabels", m("team", c.team, "tier", []string{"gold", "silver", "bronze"}[r.IntN(3)]))
	}
	if r.IntN(4) == 0 {
		item.set("additionalAnnotations", m("argocd.argoproj.io/sync-wave", strconv.Itoa(r.IntN(5)-2)))
	}
	src := m("repoURL", c.repoURL, "targetRevision", c.version)
	if c.path != "" {
		src.set("path", c.path)
	} else {
		src.set("chart", c.chart)
		src.set("helm", m("releaseName", c.name, "valuesObject", valuesObject(c, r)))
	}
	item.set("source", src).note("Argo CD source")
	item.set("destination", m("namespace", c.namespace)).spaced()
	sync := m("syncOptions", list("CreateNamespace=true", "ServerSideApply=true"))
	if r.IntN(3) == 0 {
		sync = m("automated", m("prune", true), "syncOptions", list("CreateNamespace=true", "ServerSideApply=true"),
			"retry", m("limit", 5, "backoff", m("duration", "10s", "factor", 2, "maxDuration", "5m")))
	}
	item.set("syncPolicy", sync).spaced()
	if r.IntN(3) == 0 {
		item.set("ignoreDifferences", list(m("group", "admissionregistration.k8s.io",
			"kind", "ValidatingWebhookConfiguration", "jqPathExpressions", list(".webhooks[]?.clientConfig.caBundle"))))
	}
	return item
}

func applicationSet(c component, r *rand.Rand) *mapping {
	where := func() *mapping { return m("environment", envExpr, "sector", sectorExpr, "region", regionExpr) }
	selector := m("matchLabels", m("fleet.example.com/cluster-type", ClusterType, "fleet.example.com/region", regionExpr))
	item := m("goTemplate", true,
		"generators", list(m("clusters", m("selector", selector, "values", where()))))
	item.note("cluster generator: one Application per registered cluster of this region")
	labels := m("cluster", appSetName, "component", c.name)
	labels.entries = append(labels.entries, where().entries...)
	vo := m("cluster", m("name", appSetName, "region", regionExpr, "environment", envExpr, "projectId", projectIDExpr))
	vo.entries = append(vo.entries, commonValues(c, r).entries...)
	spec := m("project", "default",
		"source", m("repoURL", c.repoURL, "targetRevision", c.version, "path", c.path, "helm", m("valuesObject", vo)),
		"destination", m("server", appSetServer, "namespace", c.namespace),
		"syncPolicy", m("automated", m("prune", true, "selfHeal", true), "syncOptions", list("CreateNamespace=true")))
	item.set("template", m("metadata", m("name", c.name+"-"+appSetName, "labels", labels), "spec", spec)).spaced()
	if r.IntN(2) == 0 {
		item.set("ignoreApplicationDifferences", list(m("jsonPointers", list("/spec/syncPolicy"))))
	}
	return item
}

// valuesObject is the Helm values an Application passes to its chart.
func valuesObject(c component, r *rand.Rand) *mapping {
	v := &mapping{}
	if c.extra != nil {
		v.entries = append(v.entries, c.extra().entries...)
	}
	v.entries = append(v.entries, commonValues(c, r).entries...)
	return v
}

// commonValues are the keys most charts share, in sizes that vary by
// component.
func commonValues(c component, r *rand.Rand) *mapping {
	v := m("replicaCount", 1+r.IntN(3))
	v.set("image", m("repository", "registry.example.com/fleet/"+c.name,
		"tag", fmt.Sprintf("v%d.%d.%d", 1+r.IntN(3), r.IntN(20), r.IntN(10)), "pullPolicy", "IfNotPresent"))
	v.set("resources", resources(r, 1))
	if r.IntN(2) == 0 {
		v.set("serviceAccount", m("create", true, "name", c.name,
			"annotations", m("iam.gke.io/gcp-service-account", c.name+"@fleet-project.iam.gserviceaccount.com")))
	}
	if r.IntN(3) == 0 {
		v.set("podAnnotations", m())
	}
	v.set("podLabels", m("app.kubernetes.io/part-of", "fleet", "fleet.example.com/team", c.team))
	v.set("nodeSelector", m("kubernetes.io/os", "linux"))
	v.set("tolerations", list(m("key", "node-role.kubernetes.io/control-plane", "operator", "Exists", "effect", "NoSchedule")))
	v.set("securityContext", m("runAsNonRoot", true, "runAsUser", 65534, "fsGroup", 65534,
		"seccompProfile", m("type", "RuntimeDefault")))
	if r.IntN(2) == 0 {
		v.set("affinity", m("podAntiAffinity", m("preferredDuringSchedulingIgnoredDuringExecution", list(
			m("weight", 100, "podAffinityTerm", m("topologyKey", "kubernetes.io/hostname",
				"labelSelector", m("matchLabels", m("app.kubernetes.io/name", c.name))))))))
	}
	v.set("serviceMonitor", m("enabled", r.IntN(4) != 0, "interval", "30s", "labels", m("release", "prometheus")))
	v.set("extraArgs", list("--log-level=info", "--metrics-bind-address=:8080"))
	v.set("env", list(m("name", "GOMAXPROCS", "value", strconv.Itoa(1+r.IntN(4))),
		m("name", "CLUSTER_REGION", "value", regionExpr)))
	if r.IntN(2) == 0 {
		v.set("podDisruptionBudget", m("enabled", true, "minAvailable", 1))
		v.set("priorityClassName", "system-cluster-critical")
	}
	return v
}

// resources is a requests/limits block scaled by factor.
func resources(r *rand.Rand, factor int) *mapping {
	cpu := 50 * (1 + r.IntN(8)) * factor
	mem := (64 << r.IntN(4)) * factor
	return m("requests", m("cpu", fmt.Sprintf("%dm", cpu), "memory", fmt.Sprintf("%dMi", mem)),
		"limits", m("cpu", fmt.Sprintf("%dm", 2*cpu), "memory", fmt.Sprintf("%dMi", 2*mem)))
}
