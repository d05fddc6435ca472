package benchfleet

import (
	"fmt"
	"strconv"
	"strings"
)

// component is one entry of the catalog a fleet draws its components from.
type component struct {
	name, description, team string
	appSet                  bool   // an ApplicationSet instead of an Application
	repoURL, chart, version string // Helm chart source (or git source when path is set)
	path                    string // git path source, for components shipped from the fleet repository
	namespace               string
	extra                   func() *mapping // component-specific valuesObject keys
}

// catalog lists the components in the order a fleet takes them: a Spec with
// n components uses the first n (numbered ones beyond). Positions 2 and 12
// are ApplicationSets, so that a 3-component fleet already has one and the
// bench fleet has two.
var catalog = []component{
	{name: "cert-manager", description: "Certificate management for Kubernetes clusters", team: "platform",
		repoURL: "https://charts.jetstack.io", chart: "cert-manager", version: "v1.18.2", namespace: "cert-manager",
		extra: func() *mapping {
			return m("crds", m("enabled", true, "keep", true), "webhook", m("securePort", 10260, "timeoutSeconds", 30),
				"cainjector", m("enabled", true), "enableCertificateOwnerRef", true)
		}},
	{name: "prometheus", description: "Cluster monitoring with the kube-prometheus stack", team: "observability",
		repoURL: "https://prometheus-community.github.io/helm-charts", chart: "kube-prometheus-stack", version: "77.9.1",
		namespace: "monitoring",
		extra: func() *mapping {
			return m("grafana", m("enabled", true, "service", m("type", "ClusterIP"), "defaultDashboardsTimezone", "utc"),
				"prometheus", m("prometheusSpec", m("retention", "10d", "scrapeInterval", "30s",
					"externalLabels", m("region", "{{ .Values.cluster.region }}", "environment", "{{ .Values.cluster.environment }}"))),
				"alertmanager", m("enabled", true, "config", block("route:\n  receiver: default\n  group_by: [alertname, namespace]\nreceivers:\n  - name: default\n")),
				"cluster", m("region", "{{ .Values.cluster.region }}", "projectId", "{{`{{ .Values.cluster.projectId }}`}}",
					"vpcId", "{{`{{ .Values.cluster.vpcId }}`}}"))
		}},
	{name: "cluster-addons", description: "Per-cluster add-ons generated for every registered cluster", team: "platform",
		appSet: true, repoURL: "https://github.com/example/fleet-addons.git", path: "addons", version: "v1.7.0", namespace: "addons"},
	{name: "hypershift", description: "Hosted control planes operator", team: "hcp",
		repoURL: "{{ .Values.cluster.repoURL | default \"https://github.com/example/fleet.git\" }}",
		version: "{{ .Values.cluster.targetRevision | default \"main\" }}", path: "manifests/hypershift", namespace: "hypershift"},
	{name: "external-dns", description: "DNS records for services and ingresses", team: "networking",
		repoURL: "https://kubernetes-sigs.github.io/external-dns", chart: "external-dns", version: "1.19.0", namespace: "external-dns",
		extra: func() *mapping {
			return m("provider", m("name", "google"), "policy", "upsert-only", "txtOwnerId", "fleet-{{ .Values.cluster.region }}",
				"domainFilters", list("example.com", "internal.example.com"), "interval", "1m")
		}},
	{name: "ingress-nginx", description: "Ingress controller", team: "networking",
		repoURL: "https://kubernetes.github.io/ingress-nginx", chart: "ingress-nginx", version: "4.13.2", namespace: "ingress-nginx",
		extra: func() *mapping {
			return m("controller", m("ingressClassResource", m("default", true), "config",
				m("use-forwarded-headers", "true", "proxy-body-size", "16m"), "metrics", m("enabled", true)))
		}},
	{name: "external-secrets", description: "Secrets synchronised from Secret Manager", team: "security",
		repoURL: "https://charts.external-secrets.io", chart: "external-secrets", version: "0.19.2", namespace: "external-secrets",
		extra: func() *mapping {
			return m("installCRDs", true, "webhook", m("port", 9443), "certController", m("create", true))
		}},
	{name: "kyverno", description: "Policy engine", team: "security",
		repoURL: "https://kyverno.github.io/kyverno", chart: "kyverno", version: "3.5.1", namespace: "kyverno",
		extra: func() *mapping {
			return m("admissionController", m("replicas", 3), "backgroundController", m("enabled", true),
				"config", m("webhooks", list(m("namespaceSelector", m("matchExpressions",
					list(m("key", "kubernetes.io/metadata.name", "operator", "NotIn", "values", list("kube-system", "kyverno"))))))))
		}},
	{name: "velero", description: "Backup and restore of cluster state", team: "storage",
		repoURL: "https://vmware-tanzu.github.io/helm-charts", chart: "velero", version: "10.1.0", namespace: "velero",
		extra: func() *mapping {
			return m("configuration", m("backupStorageLocation", list(m("name", "default", "provider", "gcp",
				"bucket", "fleet-backups-{{ .Values.cluster.region }}"))), "schedules", m("daily", m("schedule", "0 3 * * *",
				"template", m("ttl", "720h"))))
		}},
	{name: "loki", description: "Log aggregation", team: "observability",
		repoURL: "https://grafana.github.io/helm-charts", chart: "loki", version: "6.40.0", namespace: "loki",
		extra: func() *mapping {
			return m("deploymentMode", "SimpleScalable", "loki", m("auth_enabled", false, "limits_config",
				m("retention_period", "168h", "ingestion_rate_mb", 16)))
		}},
	{name: "tempo", description: "Distributed tracing backend", team: "observability",
		repoURL: "https://grafana.github.io/helm-charts", chart: "tempo", version: "1.23.3", namespace: "tempo"},
	{name: "metrics-server", description: "Resource metrics API", team: "platform",
		repoURL: "https://kubernetes-sigs.github.io/metrics-server", chart: "metrics-server", version: "3.13.0", namespace: "kube-system",
		extra: func() *mapping { return m("args", list("--kubelet-preferred-address-types=InternalIP")) }},
	{name: "regional-gateway", description: "Regional API gateway generated for every registered cluster", team: "networking",
		appSet: true, repoURL: "https://github.com/example/regional-gateway.git", path: "deploy/helm", version: "v2.4.0", namespace: "gateway"},
	{name: "cluster-autoscaler", description: "Node pool autoscaling", team: "platform",
		repoURL: "https://kubernetes.github.io/autoscaler", chart: "cluster-autoscaler", version: "9.50.1", namespace: "kube-system",
		extra: func() *mapping {
			return m("cloudProvider", "gce", "autoscalingGroupsnamePrefix", list(m("name", "fleet-pool", "minSize", 1, "maxSize", 20)))
		}},
	{name: "keda", description: "Event-driven autoscaling", team: "platform",
		repoURL: "https://kedacore.github.io/charts", chart: "keda", version: "2.17.2", namespace: "keda"},
	{name: "reloader", description: "Rolling restarts on config changes", team: "platform",
		repoURL: "https://stakater.github.io/stakater-charts", chart: "reloader", version: "2.2.2", namespace: "reloader"},
	{name: "trivy-operator", description: "Vulnerability scanning", team: "security",
		repoURL: "https://aquasecurity.github.io/helm-charts", chart: "trivy-operator", version: "0.30.0", namespace: "trivy-system",
		extra: func() *mapping { return m("trivy", m("severity", "HIGH,CRITICAL", "ignoreUnfixed", true)) }},
	{name: "opentelemetry-collector", description: "Telemetry pipeline", team: "observability",
		repoURL: "https://open-telemetry.github.io/opentelemetry-helm-charts", chart: "opentelemetry-collector",
		version: "0.133.0", namespace: "observability",
		extra: func() *mapping {
			return m("mode", "daemonset", "presets", m("kubernetesAttributes", m("enabled", true), "hostMetrics", m("enabled", true)))
		}},
	{name: "vector", description: "Log shipping", team: "observability",
		repoURL: "https://helm.vector.dev", chart: "vector", version: "0.46.0", namespace: "vector",
		extra: func() *mapping {
			return m("role", "Agent", "customConfig", m("data_dir", "/vector-data-dir", "sinks",
				m("loki", m("type", "loki", "inputs", list("kubernetes_logs"), "endpoint", "http://loki-gateway.loki.svc"))))
		}},
	{name: "argo-rollouts", description: "Progressive delivery controller", team: "delivery",
		repoURL: "https://argoproj.github.io/argo-helm", chart: "argo-rollouts", version: "2.40.4", namespace: "argo-rollouts",
		extra: func() *mapping { return m("dashboard", m("enabled", false), "controller", m("replicas", 2)) }},
}

// catalogEntry returns the i-th component of a fleet.
func catalogEntry(i int) component {
	if i < len(catalog) {
		return catalog[i]
	}
	n := fmt.Sprintf("component-%03d", i+1)
	return component{name: n, description: "Synthetic component " + strconv.Itoa(i+1), team: "fleet",
		repoURL: "https://charts.example.com/stable", chart: n, version: "1." + strconv.Itoa(i%9) + ".0", namespace: n}
}

// bump returns version with its last number raised by n: v1.18.2 -> v1.18.3.
// Template expressions are left alone.
func bump(version string, n int) string {
	if strings.Contains(version, "{{") {
		return "v4." + strconv.Itoa(18+n) + ".0" // a pinned tag replaces the templated default
	}
	i := strings.LastIndex(version, ".")
	last, err := strconv.Atoi(version[i+1:])
	if err != nil || last+n < 0 {
		return version
	}
	return version[:i+1] + strconv.Itoa(last+n)
}
