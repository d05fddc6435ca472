package status

import (
	"path"
	"strconv"
	"strings"

	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/render"
)

// batchSize is how many strings one run of Helm's engine evaluates: a run
// builds Helm's function map, which costs more than evaluating a short
// string, so strings are evaluated many at a time (a fleet of 10,000
// targets has tens of thousands); the batch bounds the values held.
const batchSize = 256

// resolver evaluates the templated strings of many cells with Helm's
// engine, a batch per run. Each cell's values are a subchart's values
// (Helm scopes .Values to a subchart), each string one of its templates,
// so every string sees its own cell's values as it would alone.
type resolver struct {
	jobs []job
	// limits bound each evaluation, as a target's render (render.RenderChart).
	limits fleet.RenderLimits
	// branch is the revision strata's bootstrap writes as the cluster
	// Secret's git_revision (fleet.Config.Branch).
	branch string
}

type job struct {
	env  *templateEnv
	text string
	set  func(string)
}

// add queues text, to be evaluated with env's values and handed to set.
func (r *resolver) add(env *templateEnv, text string, set func(string)) {
	r.jobs = append(r.jobs, job{env: env, text: text, set: set})
}

// flushIfFull evaluates the queued strings when a batch is full.
func (r *resolver) flushIfFull() {
	if len(r.jobs) >= batchSize {
		r.flush()
	}
}

// flush evaluates every queued string, including those that a set queues
// again (an expression escaped once, evaluated a second time).
func (r *resolver) flush() {
	for len(r.jobs) > 0 {
		jobs := r.jobs
		r.jobs = nil
		for start := 0; start < len(jobs); start += batchSize {
			batch := jobs[start:min(start+batchSize, len(jobs))]
			for i, s := range evaluate(batch, r.limits) {
				batch[i].set(s)
			}
		}
	}
}

// evaluate returns the jobs' strings evaluated. A string that does not
// evaluate is kept as it is. Strings that define templates (which would be
// seen by the others) and every string of a batch that fails are evaluated
// alone.
func evaluate(jobs []job, limits fleet.RenderLimits) []string {
	out := make([]string, len(jobs))
	var batch []int
	for i, j := range jobs {
		if strings.Contains(j.text, "define") || strings.Contains(j.text, "block") {
			out[i] = evaluateAlone(j, limits)
		} else {
			batch = append(batch, i)
		}
	}
	if len(batch) == 0 {
		return out
	}
	parent := newChart("status")
	vals := map[string]any{}
	sub := map[*templateEnv]*chart.Chart{}
	names := make([]string, len(jobs))
	for _, i := range batch {
		j := jobs[i]
		c := sub[j.env]
		if c == nil {
			c = newChart("cell" + strconv.Itoa(len(sub)))
			sub[j.env] = c
			vals[c.Metadata.Name] = j.env.values()
			parent.AddDependency(c)
		}
		name := "templates/value" + strconv.Itoa(i)
		c.Templates = append(c.Templates, &common.File{Name: name, Data: []byte(j.text)})
		names[i] = path.Join("status/charts", c.Metadata.Name, name)
	}
	rendered, err := render.RenderChart(parent, renderValues(vals), limits, "")
	for _, i := range batch {
		if err != nil {
			out[i] = evaluateAlone(jobs[i], limits)
		} else {
			out[i] = rendered[names[i]]
		}
	}
	return out
}

// evaluateAlone evaluates one job's string as the one template of a chart.
func evaluateAlone(j job, limits fleet.RenderLimits) string {
	c := newChart("status")
	c.Templates = []*common.File{{Name: "templates/value", Data: []byte(j.text)}}
	out, err := render.RenderChart(c, renderValues(j.env.values()), limits, "")
	if err != nil {
		return j.text
	}
	return out["status/templates/value"]
}

func newChart(name string) *chart.Chart {
	return &chart.Chart{Metadata: &chart.Metadata{APIVersion: "v2", Name: name, Version: "0.1.0"}}
}

func renderValues(v map[string]any) common.Values {
	return common.Values{
		"Values":       v,
		"Capabilities": common.DefaultCapabilities,
		"Release":      map[string]any{"Name": "status", "Namespace": "default", "IsInstall": true, "Revision": 1, "Service": "Helm"},
		"Chart":        map[string]any{"Name": "status", "Version": "0.1.0"},
	}
}
