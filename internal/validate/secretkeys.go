package validate

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/render"
	"github.com/strata-fleet/strata/internal/suggest"
)

// CheckSecretKey: an ApplicationSet's reference to a cluster Secret's label
// or annotation (clusterLabel, clusterAnnotation, or written by hand) that
// no cluster of the inventory declares: the clusters generator would give
// the controller nothing there, and missingkey=error would fail the whole
// ApplicationSet, or the Application would get an empty value.
const CheckSecretKey = "secret-key"

// RuleSecretKeyUndeclared is the rule of CheckSecretKey, an error.
const RuleSecretKeyUndeclared = "cluster-secret-key-undeclared"

// secretRef finds what Argo CD's templating reads of a cluster Secret's
// metadata: index .metadata.labels "key", or .metadata.annotations.key.
var secretRef = regexp.MustCompile(`(?:index\s+\$?\.metadata\.(labels|annotations)\s+"((?:[^"\\]|\\.)*)"|\$?\.metadata\.(labels|annotations)\.([A-Za-z0-9_]+))`)

// secretKeys checks the references an ApplicationSet makes to its
// clusters' Secret labels and annotations against those the fleet declares
// (fleet.SecretKeys). A fleet that declares nothing (no inventory, no
// clusters.runtime) is not checked.
func (v *validator) secretKeys(out *render.Output, r *rendered) []Finding {
	if r.kind != "ApplicationSet" {
		return nil
	}
	labels, annotations, ok := v.fleet.SecretKeys()
	if !ok {
		return nil
	}
	var findings []Finding
	seen := map[string]bool{}
	walkRendered("", r.obj, func(path, s string) {
		if !strings.Contains(s, ".metadata.") {
			return
		}
		for _, m := range secretRef.FindAllStringSubmatch(helmUnescape(s), -1) {
			field, key := m[1], strings.ReplaceAll(m[2], `\"`, `"`)
			if field == "" {
				field, key = m[3], m[4]
			}
			declared := labels
			if field == "annotations" {
				declared = annotations
			}
			if declared[key] || seen[path+"\x00"+field+"\x00"+key] {
				continue
			}
			seen[path+"\x00"+field+"\x00"+key] = true
			what, fn := "label", "clusterLabel"
			if field == "annotations" {
				what, fn = "annotation", "clusterAnnotation"
			}
			fd := Finding{Severity: Error, Check: CheckSecretKey, Rule: RuleSecretKeyUndeclared, File: r.file, Path: path,
				Message: fmt.Sprintf("%s %q of the cluster Secret is declared for no cluster: no inventory file of %s/ sets it, and %s's clusters.runtime.%s does not list it; %s",
					what, key, fleet.ClustersDir, fleet.ConfigPath, field, declaredHint(fn, key, field, declared))}
			v.locate(&fd, out, r)
			findings = append(findings, fd)
		}
	})
	return findings
}

// declaredHint says how to declare key, and the declared key it may be a
// typo of.
func declaredHint(fn, key, field string, declared map[string]bool) string {
	h := fmt.Sprintf("if something writes it onto the Secrets at run time (Terraform, a controller), add it to clusters: {runtime: {%s: [%s]}}", field, key)
	keys := slices.Sorted(maps.Keys(declared))
	if near := suggest.Closest(key, keys, len(key)/3+1); near != "" {
		h = fmt.Sprintf("did you mean %s %q? ", fn, near) + h
	}
	return h
}
