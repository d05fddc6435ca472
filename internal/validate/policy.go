package validate

import (
	"fmt"
	"strings"

	"github.com/strata-fleet/strata/internal/render"
	"github.com/strata-fleet/strata/internal/values"
)

// The policies, each a warning (see the package documentation for why).
const (
	RuleNoSource            = "no-source"
	RuleCreateNamespace     = "create-namespace-without-namespace"
	RulePinnedRevision      = "pinned-revision"
	RuleDuplicateDeployment = "duplicate-deployment"
)

// policies applies strata's policies to the resources of one target.
func (v *validator) policies(out *render.Output, resources []*rendered) []Finding {
	var findings []Finding
	add := func(r *rendered, rule, field, msg string) {
		fd := Finding{Severity: Warning, Check: CheckPolicy, Rule: rule, File: r.file, Path: field, Message: msg}
		v.locate(&fd, out, r)
		findings = append(findings, fd)
	}
	pin, pinPos := pinOf(out.Target)
	seen := map[string]*rendered{} // deployment key -> first resource
	for _, r := range resources {
		spec, prefix := appSpec(r.obj)
		if spec == nil {
			continue
		}
		sources := sourcesOf(r.obj)
		if r.kind == "Application" && len(sources) == 0 && spec["sourceHydrator"] == nil {
			add(r, RuleNoSource, prefix, "the Application has neither spec.source nor spec.sources: the API server accepts it, but Argo CD cannot sync it")
		}
		dest, _ := spec["destination"].(map[string]any)
		ns, _ := dest["namespace"].(string)
		if ns == "" && createsNamespace(spec) {
			add(r, RuleCreateNamespace, prefix+".syncPolicy.syncOptions",
				"CreateNamespace=true without a destination namespace: there is no namespace to create; set destination.namespace")
		}
		if pin != "" {
			for _, s := range sources {
				rev := s.str("targetRevision")
				if v.sources.repo == "" || repoKey(s.str("repoURL")) != v.sources.repo || rev == pin || templateRE.MatchString(rev) {
					continue
				}
				shown := rev
				if shown == "" {
					shown = "HEAD (targetRevision not set)"
				}
				add(r, RulePinnedRevision, s.field+".targetRevision", fmt.Sprintf(
					"the target is pinned to revision %s (%s), but this source of the repository follows %s; use {{ .Values.cluster.revision }}",
					pin, pinPos, shown))
			}
		}
		if r.kind != "Application" {
			continue
		}
		for _, s := range sources {
			key := deploymentKey(s, dest, r.name)
			if key == "" {
				continue
			}
			if first := seen[key]; first != nil && first != r {
				add(r, RuleDuplicateDeployment, s.field, fmt.Sprintf(
					"Application %s deploys the same source to the same destination: the two will fight over the same resources", first.name))
				continue
			}
			seen[key] = r
		}
	}
	return findings
}

// createsNamespace reports whether spec's sync options include
// CreateNamespace=true.
func createsNamespace(spec map[string]any) bool {
	sp, _ := spec["syncPolicy"].(map[string]any)
	opts, _ := sp["syncOptions"].([]any)
	for _, o := range opts {
		if s, ok := o.(string); ok && strings.EqualFold(strings.ReplaceAll(s, " ", ""), "CreateNamespace=true") {
			return true
		}
	}
	return false
}

// pinOf returns the revision a target is pinned to by a node of the
// sequence ("" when none is) and where the pin is set.
func pinOf(t render.Target) (string, values.Pos) {
	for n := t.Node; n != nil; n = n.Parent {
		if r := n.Revision.For(t.ClusterType.Name); r != "" {
			return r, n.Revision.Pos
		}
	}
	return "", values.Pos{}
}

// deploymentKey identifies what a source of the Application app deploys
// where: repository, path or chart, destination cluster and namespace,
// and for a Helm source (a chart, or a helm: section) its release name,
// which Argo CD takes from helm.releaseName, else the Application's name:
// two releases of one chart make objects of their own (a chart names them
// after its release), so only one release name twice fights. It is ""
// for a source that deploys nothing by itself (a ref source).
func deploymentKey(s appSource, dest map[string]any, app string) string {
	if s.str("ref") != "" && s.str("path") == "" && s.str("chart") == "" {
		return ""
	}
	cluster, _ := dest["server"].(string)
	if name, _ := dest["name"].(string); name != "" {
		cluster = "name:" + name
	}
	ns, _ := dest["namespace"].(string)
	var release string
	if helm, ok := s.m["helm"].(map[string]any); ok || s.str("chart") != "" {
		if release, _ = helm["releaseName"].(string); release == "" {
			release = app
		}
	}
	return strings.Join([]string{repoKey(s.str("repoURL")), s.str("path"), s.str("chart"), cluster, ns, release}, "\x00")
}
