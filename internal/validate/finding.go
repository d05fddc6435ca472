package validate

import (
	"cmp"
	"slices"
)

// Severity says whether a finding fails validation.
type Severity string

// The severities: an error fails strata validate, a warning does not.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
)

// The checks a finding comes from.
const (
	CheckSchema   = "schema"   // the Argo CD CRD schemas, as the API server applies them
	CheckSource   = "source"   // sources that point into this repository
	CheckConflict = "conflict" // patches of one level that set the same field
	CheckShadow   = "shadow"   // patch fields that a more specific file sets again
	CheckPolicy   = "policy"   // strata's policies (see the package documentation)
	// CheckCollision: resources that two clusters put under one name into
	// the same Argo CD.
	CheckCollision = "collision"
	// CheckProject: a root object in a project that the Argo CD holding it
	// does not get from the fleet.
	CheckProject = "project"
	// CheckChart: what config.yaml's charts: leaves aside (a directory
	// without Chart.yaml) or loses (a chart's component pointing elsewhere).
	CheckChart = "chart"
)

// Finding is one thing strata validate reports.
type Finding struct {
	Severity Severity `json:"severity"`
	// Check is the check that found it (CheckSchema, ...); Rule names the
	// policy of a policy finding.
	Check string `json:"check"`
	Rule  string `json:"rule,omitempty"`
	// File is the file the finding is about, relative to the repository:
	// the rendered resource (rendered/<type>/<path>/templates/<name>.yaml),
	// or the patch of a conflict; Line is the line in it, when known.
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	// Path is the field path in File's resource (spec.source.repoURL), or
	// the key path in the values of a conflict.
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
	// Source is the config file, line and column that set the field, when
	// known (config/<type>/<component>/values.yaml:12:7).
	Source string `json:"source,omitempty"`
}

// Report is the result of a validation.
type Report struct {
	// ArgoCD is the Argo CD release whose CRD schemas were applied.
	ArgoCD string `json:"argocd"`
	// Targets and Resources count what was checked.
	Targets   int       `json:"targets"`
	Resources int       `json:"resources"`
	Findings  []Finding `json:"findings"`
}

// Count returns the number of findings of severity s.
func (r *Report) Count(s Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == s {
			n++
		}
	}
	return n
}

// sortFindings orders findings by file, line, path and message.
func sortFindings(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Path, b.Path),
			cmp.Compare(a.Message, b.Message), cmp.Compare(a.Source, b.Source))
	})
}
