package fleet

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/strata-fleet/strata/internal/values"
)

// Amount is a count, or a percentage of some total: an entry of rollout
// waves: (1, "25%") or a rollout maxUnhealthy:.
type Amount struct {
	// N is the count, or the percentage when Percent is set (1 to 100).
	N       int
	Percent bool
	Pos     values.Pos
}

func (a Amount) String() string {
	if a.Percent {
		return fmt.Sprintf("%d%%", a.N)
	}
	return strconv.Itoa(a.N)
}

// Waves sizes the steps in which a patch enters the nodes at the promotion
// level under the node whose rollout: sets them (the group, see WavesAt),
// in rollout order. Each entry is the size of one wave: a count of nodes,
// or a percentage of the group's nodes rounded up (25% of 10 nodes is 3).
// config.yaml lists them in ascending order (counts among counts,
// percentages among percentages), the last 100%.
// Ends returns where each wave ends.
type Waves []Amount

// Ends returns, for a group of n nodes, how many of them have the patch
// once each wave is in, in order: each wave enters its size more (at least
// one node, never more than are left); the last wave always completes the
// group, whatever its size, and entries the group does not need are left
// out. waves: [1, 5, 25%, 100%] over 160 nodes ends at 1, 6, 46, 160.
// An empty list (or n == 0) is one node per wave.
func (w Waves) Ends(n int) []int {
	var ends []int
	done := 0
	for i := 0; done < n; i++ {
		size := 1
		if i < len(w) {
			size = w[i].N
			if w[i].Percent {
				size = (w[i].N*n + 99) / 100 // rounded up
			}
		}
		done = min(n, done+max(1, min(size, n))) // min: no overflow of a huge count
		if len(w) > 0 && i == len(w)-1 {
			done = n // the last wave completes the group
		}
		ends = append(ends, done)
	}
	return ends
}

// Allowed is how many of total a maxUnhealthy: budget allows: its count,
// or its percentage of total rounded down (10% of 15 clusters is 1), so
// that a budget never allows more than it says.
func (a Amount) Allowed(total int) int {
	if a.Percent {
		return a.N * total / 100
	}
	return a.N
}

// WaveGroup is where waves apply: the group node and its waves.
type WaveGroup struct {
	// Node is the node whose nodes at the promotion level the waves enter:
	// the nearest node at or above the step that sets waves:; for the
	// top-level setting, the step's first-dimension node (a wave never
	// spans two nodes of the first dimension).
	Node  *Node
	Waves Waves
}

// WavesAt returns the waves that size a step entering node n, and false
// when no node at or above n (nor the top level) sets waves: (or the
// nearest that does sets "waves: []"): one node per step.
func (c *Config) WavesAt(n *Node) (WaveGroup, bool) {
	for p := n; p != nil && p.Depth > 0; p = p.Parent {
		if p.Rollout != nil && p.Rollout.HasWaves {
			return WaveGroup{Node: p, Waves: p.Rollout.Waves}, len(p.Rollout.Waves) > 0
		}
	}
	if c.Rollout == nil || len(c.Rollout.Waves) == 0 || n == nil || n.Depth == 0 {
		return WaveGroup{}, false
	}
	top := n
	for top.Depth > 1 {
		top = top.Parent
	}
	return WaveGroup{Node: top, Waves: c.Rollout.Waves}, true
}

const (
	wavesHint  = "waves: [1, 5, 25%, 100%] (each wave a count of nodes or a percentage of the nodes under the node, rounded up; the last wave completes it)"
	budgetHint = "maxUnhealthy: 2, or maxUnhealthy: 10% (of the step's clusters, rounded down)"
)

// parseWaves reads rollout waves:, a list of counts and percentages.
func parseWaves(v *values.Value, path []string) (Waves, error) {
	if v.Kind == values.Null {
		return nil, nil
	}
	if v.Kind != values.List {
		e := values.TypeError(v, path, values.List)
		e.Hint = wavesHint
		return nil, e
	}
	out := Waves{}
	for i, it := range v.Items {
		ipath := append(path[:len(path):len(path)], strconv.Itoa(i))
		a, err := parseAmount(it, ipath, wavesHint, 1)
		if err != nil {
			return nil, err
		}
		if err := nextWave(out, a, ipath); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	if n := len(out); n > 0 && (!out[n-1].Percent || out[n-1].N != 100) {
		last := out[n-1]
		return nil, &values.Error{Pos: last.Pos, Path: append(path[:len(path):len(path)], strconv.Itoa(n-1)),
			Msg: fmt.Sprintf("the last wave is %s, not 100%%: the waves must say that the last one completes the group", last), Hint: wavesHint}
	}
	return out, nil
}

// nextWave checks that a may follow the waves before it: in ascending
// order (a count no smaller than the counts before it, a percentage no
// smaller than the percentages before it) and never after 100%, after
// which no wave is left to run.
func nextWave(before Waves, a Amount, path []string) error {
	for _, b := range before {
		msg := ""
		switch {
		case b.Percent && b.N == 100:
			msg = fmt.Sprintf("a wave after 100%% (line %d) would never run", b.Pos.Line)
		case b.Percent == a.Percent && a.N < b.N:
			msg = fmt.Sprintf("%s is smaller than the wave of %s before it: waves grow, in ascending order", a, b)
		}
		if msg != "" {
			return &values.Error{Pos: a.Pos, Path: path, Msg: msg, Hint: wavesHint}
		}
	}
	return nil
}

// parseAmount reads a count (at least least) or a percentage ("25%", 1 to
// 100, or 0 to 100 when least is 0).
func parseAmount(v *values.Value, path []string, hint string, least int) (Amount, error) {
	bad := func(msg string) (Amount, error) {
		return Amount{}, &values.Error{Pos: v.Pos, Path: path, Msg: msg, Hint: hint}
	}
	switch v.Kind {
	case values.Int:
		n, err := strconv.Atoi(v.Text)
		if err != nil || n < least {
			return bad(fmt.Sprintf("%s is not a count of at least %d", v.Text, least))
		}
		return Amount{N: n, Pos: v.Pos}, nil
	case values.String:
		num, ok := strings.CutSuffix(strings.TrimSpace(v.Text), "%")
		n, err := strconv.Atoi(num)
		if !ok || err != nil {
			return bad(fmt.Sprintf("%q is neither a count nor a percentage", v.Text))
		}
		if n < least || n > 100 {
			return bad(fmt.Sprintf("%q is not a percentage from %d%% to 100%%", v.Text, least))
		}
		return Amount{N: n, Percent: true, Pos: v.Pos}, nil
	}
	return bad("expected a count or a percentage, got " + describe(v))
}

// parseWavesAndBudget reads rollout waves: and maxUnhealthy: into s.
func parseWavesAndBudget(s *RolloutSettings, v *values.Value, path []string) error {
	if wv := v.Get("waves"); wv != nil {
		w, err := parseWaves(wv, append(path[:len(path):len(path)], "waves"))
		if err != nil {
			return err
		}
		s.Waves, s.HasWaves = w, true
	}
	if bv := v.Get("maxUnhealthy"); bv != nil {
		a, err := parseAmount(bv, append(path[:len(path):len(path)], "maxUnhealthy"), budgetHint, 0)
		if err != nil {
			return err
		}
		s.MaxUnhealthy = &a
	}
	return nil
}
