package fleet

import (
	"fmt"

	"github.com/strata-fleet/strata/internal/values"
)

// RunnerRollout is what one runner adds to the rollout policy of every
// node, from a file outside the repository (strata rollout
// --rollout-config FILE; the Helm chart renders it from its
// runner.rollout values into a ConfigMap): stopWhen conditions and checks
// of the hub that runs it (its own Prometheus and Alertmanager), which
// every step must pass besides config.yaml's. They add and never replace:
// what the fleet's reviewers put in config.yaml holds whatever a runner's
// file says, and a name in both is an error, never a guess of which one
// is meant.
type RunnerRollout struct {
	StopWhen []StopCondition
	Checks   []Check
}

// ParseRunnerRollout reads a runner's rollout file, named file in errors:
// a map with the keys stopWhen and checks, each as in config.yaml's
// rollout:.
func ParseRunnerRollout(file string, data []byte) (*RunnerRollout, error) {
	v, err := values.Decode(file, data)
	if err != nil {
		return nil, err
	}
	r := &RunnerRollout{}
	if v == nil || v.Kind == values.Null {
		return r, nil
	}
	if v.Kind != values.Map {
		e := values.TypeError(v, nil, values.Map)
		e.Hint = `stopWhen: [{alertmanager: {url: ..., matchers: ['severity="critical"']}}], checks: [{name: ..., prometheus: {url: ..., query: ...}}]`
		return nil, e
	}
	if err := knownKeys(v, nil, "stopWhen", "checks"); err != nil {
		return nil, err
	}
	if sv := v.Get("stopWhen"); sv != nil {
		if r.StopWhen, err = parseStopWhen(sv, []string{"stopWhen"}); err != nil {
			return nil, err
		}
	}
	if cv := v.Get("checks"); cv != nil {
		if r.Checks, err = parseChecks(cv, []string{"checks"}); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Add is p with r's stopWhen conditions and checks after its own.
func (r *RunnerRollout) Add(p RolloutPolicy) RolloutPolicy {
	if r == nil {
		return p
	}
	if len(r.StopWhen) > 0 {
		p.StopWhen = append(p.StopWhen[:len(p.StopWhen):len(p.StopWhen)], r.StopWhen...)
	}
	if len(r.Checks) > 0 {
		p.Checks = append(p.Checks[:len(p.Checks):len(p.Checks)], r.Checks...)
	}
	return p
}

// Check reports a stopWhen condition or check of r named as one of c's,
// at any node, naming both places: events, errors and the record name
// them by name, so the two would be taken for one.
func (r *RunnerRollout) Check(c *Config) error {
	if r == nil {
		return nil
	}
	nodes := []*Node{nil} // the top level
	c.Root.Walk(func(n *Node) { nodes = append(nodes, n) })
	for _, n := range nodes {
		p := c.RolloutAt(n)
		for _, rc := range r.StopWhen {
			for _, o := range p.StopWhen {
				if o.Name == rc.Name {
					return sameName("stopWhen condition", rc.Name, rc.Pos, o.Pos)
				}
			}
		}
		for _, rc := range r.Checks {
			for _, o := range p.Checks {
				if o.Name == rc.Name {
					return sameName("check", rc.Name, rc.Pos, o.Pos)
				}
			}
		}
	}
	return nil
}

func sameName(what, name string, runner, fleet values.Pos) error {
	return &values.Error{Pos: runner, Msg: fmt.Sprintf("the %s %q is named in config.yaml too (%s)", what, name, fleet),
		Hint: "a runner's rollout file adds to config.yaml's rollout settings and replaces none: give it a name of its own"}
}
