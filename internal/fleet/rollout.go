package fleet

import (
	"fmt"
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
	// Watch is "watch: false" on a node whose targets have nothing for
	// strata rollout to wait on (no cluster of the inventory, or none it
	// can read): its steps run their checks alone (nil: not set).
	Watch *bool
}

// Check is a command strata rollout runs after a step has synced, become
// healthy and soaked; exit status 0 passes.
type Check struct {
	Name    string
	Command string
	Timeout time.Duration
	Pos     values.Pos
}

// RolloutPolicy is what strata rollout does at a node, every key resolved.
type RolloutPolicy struct {
	// Soak is how long the step's Applications must stay healthy.
	Soak time.Duration
	// Timeout bounds the wait for the step's Applications to sync and
	// become healthy.
	Timeout time.Duration
	Checks  []Check
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
	if err := knownKeys(v, path, "soak", "timeout", "checks", "watch"); err != nil {
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
		if err := knownKeys(it, ipath, "name", "command", "timeout"); err != nil {
			return nil, err
		}
		c := Check{Name: stringAt(it, "name"), Command: stringAt(it, "command"), Timeout: DefaultCheckTimeout, Pos: it.Pos}
		if c.Command == "" {
			return nil, &values.Error{Pos: it.Pos, Path: ipath, Msg: "missing key command",
				Hint: "the command is run by sh -c in the repository, with the step's targets in STRATA_TARGETS; exit status 0 passes"}
		}
		if c.Name == "" {
			c.Name = c.Command
		}
		if tv := it.Get("timeout"); tv != nil {
			d, err := parseDuration(tv, append(ipath, "timeout"))
			if err != nil {
				return nil, err
			}
			c.Timeout = d
		}
		out = append(out, c)
	}
	return out, nil
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
