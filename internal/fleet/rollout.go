package fleet

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/strata-fleet/strata/internal/values"
)

// Defaults of a rollout policy that nothing sets.
const (
	DefaultRolloutTimeout = 15 * time.Minute
	DefaultCheckTimeout   = 5 * time.Minute
)

// RolloutSettings is the rollout: key of config.yaml, at the top level (for
// every node) or on a node of the sequence (for the node and the nodes under
// it). A key left out is inherited: from the nearest ancestor that sets it,
// then the top level, then the defaults. Checks are replaced as a whole, not
// merged.
type RolloutSettings struct {
	Soak    *time.Duration
	Timeout *time.Duration
	Checks  []Check
	// HasChecks tells "checks: []" (none, overriding the ancestors) from a
	// missing key.
	HasChecks bool
	Pos       values.Pos

	// Waves size the steps that enter the nodes under the node (see
	// WavesAt); HasWaves tells "waves: []" from a missing key.
	// MaxUnhealthy is the step's failure budget (see RolloutPolicy).
	Waves        Waves
	HasWaves     bool
	MaxUnhealthy *Amount
	// StopWhen are the conditions that stop every step from starting, and
	// fail a step they interrupt; HasStopWhen tells "stopWhen: []" from a
	// missing key.
	StopWhen    []StopCondition
	HasStopWhen bool
	// Watch is "watch: false" on a node whose targets have nothing for
	// strata rollout to wait on (no cluster of the inventory, or none it
	// can read): its steps run their checks alone (nil: not set).
	Watch *bool
}

// Check is what strata rollout runs after a step has synced, become
// healthy and soaked: a command (exit status 0 passes) or a Prometheus
// query (no samples passes, as an alerting rule that does not fire).
type Check struct {
	Name    string
	Command string
	Timeout time.Duration
	// Grace is how long a prometheus check may stay unreadable, holding
	// the step (read again meanwhile), before the rollout ends on it (0:
	// at once).
	Grace time.Duration
	Pos   values.Pos

	Prometheus *PrometheusQuery
}

// RolloutPolicy is what strata rollout does at a node, every key resolved.
type RolloutPolicy struct {
	// Soak is how long the step's Applications must stay healthy.
	Soak time.Duration
	// Timeout bounds the wait for the step's Applications to sync and
	// become healthy.
	Timeout time.Duration
	Checks  []Check

	// MaxUnhealthy is how many of a step's clusters may fail to become
	// synced and healthy (named, not waited for) without failing the
	// step: a count, or a percentage of the step's clusters (default 0).
	MaxUnhealthy Amount
	// StopWhen are the conditions that hold every step of the rollout
	// from starting, and fail a step whose wait or soak they interrupt.
	StopWhen []StopCondition
	// NoWatch: the node declares it has nothing to watch (watch: false);
	// otherwise a step with nothing to wait on stops the rollout.
	NoWatch bool
}

// RolloutAt resolves the rollout policy of node n (nil: the top level).
func (c *Config) RolloutAt(n *Node) RolloutPolicy {
	chain := []*RolloutSettings{}
	for p := n; p != nil && p.Depth > 0; p = p.Parent {
		if p.Rollout != nil {
			chain = append(chain, p.Rollout)
		}
	}
	if c.Rollout != nil {
		chain = append(chain, c.Rollout)
	}
	pol := RolloutPolicy{Timeout: DefaultRolloutTimeout}
	soak, timeout, checks := false, false, false
	stopWhen := false
	for _, s := range chain {
		if s.Soak != nil && !soak {
			pol.Soak, soak = *s.Soak, true
		}
		if s.Timeout != nil && !timeout {
			pol.Timeout, timeout = *s.Timeout, true
		}
		if s.HasChecks && !checks {
			pol.Checks, checks = s.Checks, true
		}
		if s.HasStopWhen && !stopWhen {
			pol.StopWhen, stopWhen = s.StopWhen, true
		}
	}
	for _, s := range chain {
		if s.MaxUnhealthy != nil {
			pol.MaxUnhealthy = *s.MaxUnhealthy
			break
		}
	}
	for _, s := range chain {
		if s.Watch != nil {
			pol.NoWatch = !*s.Watch
			break
		}
	}
	return pol
}

func parseRollout(v *values.Value, path []string) (*RolloutSettings, error) {
	if v.Kind != values.Map {
		e := values.TypeError(v, path, values.Map)
		e.Hint = "rollout: {soak: 10m, timeout: 15m, checks: [{name: smoke, command: ./smoke.sh}]}"
		return nil, e
	}
	if err := knownKeys(v, path, "soak", "timeout", "checks",
		"waves", "maxUnhealthy", "stopWhen", "watch"); err != nil {
		return nil, err
	}
	s := &RolloutSettings{Pos: v.Pos}
	if wv := v.Get("watch"); wv != nil {
		if wv.Kind != values.Bool {
			return nil, &values.Error{Pos: wv.Pos, Path: append(path[:len(path):len(path)], "watch"),
				Msg: "expected true or false, got " + describe(wv), Hint: "watch: false declares that the node's steps have nothing for strata rollout to wait on"}
		}
		w := wv.Text == "true"
		s.Watch = &w
	}
	for _, key := range []string{"soak", "timeout"} {
		dv := v.Get(key)
		if dv == nil {
			continue
		}
		d, err := parseDuration(dv, append(path[:len(path):len(path)], key))
		if err != nil {
			return nil, err
		}
		if key == "timeout" && d == 0 {
			return nil, zeroTimeout(dv, append(path[:len(path):len(path)], key))
		}
		if key == "soak" {
			s.Soak = &d
		} else {
			s.Timeout = &d
		}
	}
	if cv := v.Get("checks"); cv != nil {
		s.HasChecks = true
		checks, err := parseChecks(cv, append(path[:len(path):len(path)], "checks"))
		if err != nil {
			return nil, err
		}
		s.Checks = checks
	}
	if err := parseWavesAndBudget(s, v, path); err != nil {
		return nil, err
	}
	if sv := v.Get("stopWhen"); sv != nil {
		s.HasStopWhen = true
		conds, err := parseStopWhen(sv, append(path[:len(path):len(path)], "stopWhen"))
		if err != nil {
			return nil, err
		}
		s.StopWhen = conds
	}
	return s, nil
}

func parseChecks(v *values.Value, path []string) ([]Check, error) {
	if v.Kind == values.Null {
		return nil, nil
	}
	if v.Kind != values.List {
		e := values.TypeError(v, path, values.List)
		e.Hint = "checks: [{name: smoke, command: ./smoke.sh, timeout: 2m}]"
		return nil, e
	}
	var out []Check
	for i, it := range v.Items {
		ipath := append(path[:len(path):len(path)], fmt.Sprint(i))
		if it.Kind != values.Map {
			return nil, values.TypeError(it, ipath, values.Map)
		}
		if err := knownKeys(it, ipath, "name", "command", "timeout", "prometheus", "grace"); err != nil {
			return nil, err
		}
		c := Check{Name: stringAt(it, "name"), Command: stringAt(it, "command"), Timeout: DefaultCheckTimeout, Pos: it.Pos}
		if pv := it.Get("prometheus"); pv != nil {
			q, err := parsePrometheus(pv, append(ipath, "prometheus"))
			if err != nil {
				return nil, err
			}
			c.Prometheus, c.Timeout = q, DefaultQueryTimeout
		}
		switch {
		case c.Command == "" && c.Prometheus == nil:
			return nil, &values.Error{Pos: it.Pos, Path: ipath, Msg: "missing key command (or prometheus)",
				Hint: "the command is run by sh -c in the repository, with the step's targets in STRATA_TARGETS; exit status 0 passes; a prometheus: {url, query} check passes when the query returns no samples"}
		case c.Command != "" && c.Prometheus != nil:
			return nil, &values.Error{Pos: it.Pos, Path: ipath, Msg: "a check is a command or a prometheus query, not both"}
		}
		if c.Name == "" {
			c.Name = c.Command
			if c.Prometheus != nil {
				c.Name = c.Prometheus.Query
			}
		}
		if tv := it.Get("timeout"); tv != nil {
			d, err := parseDuration(tv, append(ipath, "timeout"))
			if err != nil {
				return nil, err
			}
			if d == 0 {
				return nil, zeroTimeout(tv, append(ipath, "timeout"))
			}
			c.Timeout = d
		}
		if gv := it.Get("grace"); gv != nil {
			if c.Prometheus == nil {
				return nil, &values.Error{Pos: gv.Pos, Path: append(ipath, "grace"), Msg: "grace is for a prometheus check, which can be unreadable; a command's exit status is its verdict",
					Hint: "remove grace:, or make the check a prometheus: {url, query} one"}
			}
			d, err := parseDuration(gv, append(ipath, "grace"))
			if err != nil {
				return nil, err
			}
			c.Grace = d
		}
		for _, o := range out {
			if o.Name == c.Name {
				return nil, &values.Error{Pos: c.Pos, Path: ipath, Msg: fmt.Sprintf("a second check named %q (the first at line %d)", c.Name, o.Pos.Line),
					Hint: "events, errors and the rollout's record name a check by its name: give each its own (name: ...)"}
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// zeroTimeout is the error of a timeout of 0, which would fail at once
// whatever it bounds.
func zeroTimeout(v *values.Value, path []string) error {
	return &values.Error{Pos: v.Pos, Path: path, Msg: "timeout must be more than 0",
		Hint: `a duration with its unit: "90s", "5m", "1h30m"`}
}

// parseDuration reads a Go duration ("90s", "5m", "1h30m").
func parseDuration(v *values.Value, path []string) (time.Duration, error) {
	hint := `a duration with its unit: "90s", "5m", "1h30m"`
	if v.Kind != values.String {
		return 0, &values.Error{Pos: v.Pos, Path: path, Msg: "expected a duration, got " + describe(v), Hint: hint}
	}
	d, err := time.ParseDuration(v.Text)
	if err != nil || d < 0 {
		return 0, &values.Error{Pos: v.Pos, Path: path, Msg: fmt.Sprintf("%q is not a duration", v.Text), Hint: hint}
	}
	return d, nil
}

// Strictest is the policy of a step that changes targets under nodes of
// different policies (a fold, which changes values.yaml under every node):
// one that meets each of ps. The longest soak and timeout; every check
// and stopWhen condition (once each); the smallest maxUnhealthy, none
// when two of different kinds (a count and a percentage, which only the
// step's clusters could compare) differ; watched unless every one says
// watch: false. No policy is the top level's defaults.
func Strictest(ps ...RolloutPolicy) RolloutPolicy {
	if len(ps) == 0 {
		return RolloutPolicy{Timeout: DefaultRolloutTimeout}
	}
	out := ps[0]
	out.Checks = slices.Clone(out.Checks)
	out.StopWhen = slices.Clone(out.StopWhen)
	for _, p := range ps[1:] {
		out.Soak, out.Timeout = max(out.Soak, p.Soak), max(out.Timeout, p.Timeout)
		for _, c := range p.Checks {
			if !slices.ContainsFunc(out.Checks, func(o Check) bool { return sameCheck(o, c) }) {
				out.Checks = append(out.Checks, c)
			}
		}
		for _, c := range p.StopWhen {
			if !slices.ContainsFunc(out.StopWhen, func(o StopCondition) bool { return o.Name == c.Name }) {
				out.StopWhen = append(out.StopWhen, c)
			}
		}
		a, b := out.MaxUnhealthy, p.MaxUnhealthy
		switch {
		case a.N == 0 || b.N == 0 || a.Percent != b.Percent:
			out.MaxUnhealthy = Amount{}
		case b.N < a.N:
			out.MaxUnhealthy = b
		}
		out.NoWatch = out.NoWatch && p.NoWatch
	}
	return out
}

// StrictestAt is Strictest of the policies of the nodes at paths
// ("<env>/<region>", "" the top level): the policy of a fold over them.
func (c *Config) StrictestAt(paths ...string) RolloutPolicy {
	ps := make([]RolloutPolicy, len(paths))
	for i, p := range paths {
		ps[i] = c.RolloutAt(c.Find(strings.Split(p, "/")))
	}
	return Strictest(ps...)
}

// sameCheck reports whether a and b run the same thing (one config.yaml
// entry inherited by several nodes, or two alike).
func sameCheck(a, b Check) bool {
	if a.Name != b.Name || a.Command != b.Command || a.Timeout != b.Timeout || a.Grace != b.Grace || (a.Prometheus == nil) != (b.Prometheus == nil) {
		return false
	}
	return a.Prometheus == nil || (a.Prometheus.URL == b.Prometheus.URL && a.Prometheus.Query == b.Prometheus.Query)
}
