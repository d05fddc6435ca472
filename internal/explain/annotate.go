package explain

import (
	"strings"

	"github.com/strata-fleet/strata/internal/values"
)

// Line is a line of YAML and, on the line that writes a leaf, the position
// of the file and line that set the leaf.
type Line struct {
	Text  string `json:"text"`
	SetAt string `json:"setAt,omitempty"`
}

// Annotate lays v out as YAML, one Line per line, each leaf's first line
// carrying its position. Lists are leaves: they replace, never merge.
func Annotate(v *values.Value) []Line {
	var out []Line
	if v.Kind != values.Map || len(v.Keys) == 0 {
		return block(values.Encode(v), "", v.Pos)
	}
	var walk func(m *values.Value, indent string)
	walk = func(m *values.Value, indent string) {
		for i, k := range m.Keys {
			child := m.Vals[i]
			if child.Kind == values.Map && len(child.Keys) > 0 {
				one := values.NewMap(values.Pos{})
				one.Set(k, values.NewMap(values.Pos{}))
				head := strings.TrimSuffix(strings.TrimSuffix(string(values.Encode(one)), "\n"), " {}")
				out = append(out, Line{Text: indent + head})
				walk(child, indent+"  ")
				continue
			}
			one := values.NewMap(values.Pos{})
			one.Set(k, child)
			out = append(out, block(values.Encode(one), indent, child.Pos)...)
		}
	}
	walk(v, "")
	return out
}

func block(data []byte, indent string, pos values.Pos) []Line {
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	out := make([]Line, len(lines))
	for i, l := range lines {
		out[i].Text = indent + l
		if l == "" {
			out[i].Text = ""
		}
	}
	out[0].SetAt = pos.String()
	return out
}

// Format writes lines as YAML with each position as a comment, aligned.
func Format(lines []Line) string {
	width := 0
	for _, l := range lines {
		if l.SetAt != "" && !strings.Contains(l.Text, "\n") {
			width = max(width, len(l.Text))
		}
	}
	width = min(width, 60)
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.Text)
		if l.SetAt != "" {
			b.WriteString(strings.Repeat(" ", max(1, width-len(l.Text)+2)))
			b.WriteString("# ")
			b.WriteString(l.SetAt)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
