package freeze

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/strata-fleet/strata/internal/values"
)

// Add returns freezes with f added; a freeze of the same node is an error
// naming it (unfreeze it first, or leave it).
func Add(freezes []Freeze, f Freeze) ([]Freeze, error) {
	for _, old := range freezes {
		if old.Node == f.Node {
			return nil, fmt.Errorf("%s (%s:%d); nothing was changed", old, File, old.Pos.Line)
		}
	}
	return append(freezes[:len(freezes):len(freezes)], f), nil
}

// Remove returns freezes without the freeze of node, and that freeze. A
// node that is not frozen is an error that names the freezes there are.
func Remove(freezes []Freeze, node string) ([]Freeze, Freeze, error) {
	var out []Freeze
	var gone *Freeze
	for i, f := range freezes {
		if f.Node == node {
			gone = &freezes[i]
			continue
		}
		out = append(out, f)
	}
	if gone != nil {
		return out, *gone, nil
	}
	scope := (Freeze{Node: node}).Scope()
	if len(freezes) == 0 {
		return nil, Freeze{}, fmt.Errorf("%s is not frozen: no freeze is recorded in %s", scope, File)
	}
	var list []string
	for _, f := range freezes {
		list = append(list, fmt.Sprintf("%s:%d: %s", File, f.Pos.Line, f))
	}
	return nil, Freeze{}, fmt.Errorf("%s is not frozen itself; the freezes are:\n  %s", scope, strings.Join(list, "\n  "))
}

// header opens File, for whoever reads it.
const header = `# Freezes stop the line: while a node is frozen, no strata promote or
# strata rollout starts a step into it (an entry without node freezes the
# whole fleet). strata freeze and strata unfreeze write this file and commit
# it, so that Git keeps who froze what, when and why.
`

// Encode writes freezes as File holds them.
func Encode(freezes []Freeze) []byte {
	var b strings.Builder
	b.WriteString(header)
	if len(freezes) == 0 {
		b.WriteString("freezes: []\n")
		return []byte(b.String())
	}
	b.WriteString("freezes:\n")
	for _, f := range freezes {
		lead := "  - "
		if f.Node != "" {
			fmt.Fprintf(&b, "%snode: %s\n", lead, quote(f.Node))
			lead = "    "
		}
		fmt.Fprintf(&b, "%sby: %s\n", lead, quote(f.By))
		fmt.Fprintf(&b, "    at: %s\n", quote(f.At.UTC().Format(time.RFC3339)))
		fmt.Fprintf(&b, "    reason: %s\n", quote(f.Reason))
	}
	return []byte(b.String())
}

// quote writes s plain where YAML reads it back as the same string, else
// double-quoted (Go's escapes are YAML's), so that no text reads as
// another type or breaks the line.
func quote(s string) string {
	if !strings.ContainsAny(s, "\"\\\n\t") {
		v, err := values.Decode("", []byte("k: "+s+"\n"))
		if err == nil && v.Kind == values.Map {
			if k := v.Get("k"); k != nil && k.Kind == values.String && k.Text == s {
				return s
			}
		}
	}
	return strconv.Quote(s)
}
