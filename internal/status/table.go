package status

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/strata-fleet/strata/internal/values"
)

// TableOptions controls the text table.
type TableOptions struct {
	// Width is the number of columns to fit in; 0 means no limit.
	Width int
	// Color adds ANSI colours (for a terminal).
	Color bool
}

// ANSI styles of the table.
const (
	styleNone   = ""
	styleHeader = "\x1b[1m"
	stylePatch  = "\x1b[33m"
	styleDim    = "\x1b[2m"
	styleGate   = "\x1b[35m"
	styleBad    = "\x1b[31m"
	styleGood   = "\x1b[32m"
	styleReset  = "\x1b[0m"
)

// minColumn is the narrowest a column is shrunk to.
const minColumn = 8

// WriteTable prints the matrix of every cluster type and its patches.
func WriteTable(w io.Writer, s *Status, opts TableOptions) error {
	tw := &tableWriter{w: w, opts: opts}
	for i, ct := range s.ClusterTypes {
		if i > 0 {
			tw.line("")
		}
		tw.clusterType(s, &ct)
	}
	if s.Live != nil {
		tw.writeLive(s.Live)
	}
	tw.rollouts(s)
	tw.folded(s)
	return tw.err
}

type tableWriter struct {
	w    io.Writer
	opts TableOptions
	err  error
}

func (tw *tableWriter) line(s string) {
	if tw.err == nil {
		_, tw.err = io.WriteString(tw.w, strings.TrimRight(s, " ")+"\n")
	}
}

type cell struct {
	text  string
	style string
}

type column struct {
	header string
	width  int
	// left truncates from the left (paths keep their last segments).
	left bool
}

func (tw *tableWriter) clusterType(s *Status, ct *ClusterType) {
	tw.line(truncate(fmt.Sprintf("%s: %d targets, %d components, %s", ct.Name, len(ct.Targets), len(ct.Components), plural(len(ct.Patches), "patch", "patches")+" rolling out"), tw.opts.Width, false))
	tw.line("")
	if len(ct.Targets) == 0 {
		return
	}
	dims := make([]column, len(s.Dimensions))
	for i, d := range s.Dimensions {
		dims[i] = column{header: strings.ToUpper(singular(d))}
	}
	comps := make([]column, len(ct.Components))
	for i, c := range ct.Components {
		comps[i] = column{header: c}
	}
	dimCells := groupCells(ct.Targets, len(s.Dimensions))
	rows := make([][]cell, len(ct.Targets))
	for r, t := range ct.Targets {
		rows[r] = append(rows[r], dimCells[r]...)
		for _, c := range t.Cells {
			rows[r] = append(rows[r], matrixCell(c))
		}
	}
	cols := append(append([]column{}, dims...), comps...)
	natural(cols, rows)
	// Split the component columns into chunks that fit beside the
	// dimension columns; each chunk is a table of its own.
	fixed := 0
	for _, c := range cols[:len(dims)] {
		fixed += c.width + 2
	}
	var chunks [][]int
	used := 0
	for i := range comps {
		col := len(dims) + i
		avail := tw.opts.Width - fixed
		if tw.opts.Width > 0 && cols[col].width > avail {
			cols[col].width = max(avail, minColumn)
		}
		if len(chunks) == 0 || (tw.opts.Width > 0 && used+cols[col].width > avail) {
			chunks = append(chunks, nil)
			used = 0
		}
		chunks[len(chunks)-1] = append(chunks[len(chunks)-1], col)
		used += cols[col].width + 2
	}
	if len(chunks) > 1 {
		tw.line(truncate(fmt.Sprintf("components in %d tables to fit %d columns", len(chunks), tw.opts.Width), tw.opts.Width, false))
		tw.line("")
	}
	for k, chunk := range chunks {
		if k > 0 {
			tw.line("")
		}
		idx := make([]int, 0, len(dims)+len(chunk))
		for i := range dims {
			idx = append(idx, i)
		}
		idx = append(idx, chunk...)
		tw.rows(pick(cols, idx), pickRows(rows, idx), ct.Targets)
	}
	if len(ct.Patches) > 0 {
		tw.line(truncate("+NNN: patch-NNN in effect; (manual): a gate that promote enters only with --approve", tw.opts.Width, false))
		if shadowed(ct) {
			tw.line(truncate("+NNN!: a more specific file sets a field of patch-NNN again, which never reaches the target (strata validate names them)", tw.opts.Width, false))
		}
	}
	if s.Live != nil {
		tw.line(truncate("live: healthy, synced (not healthy yet), waiting (for Argo CD to sync the last change), uncommitted, drift (synced but out of sync), degraded, failed, missing, unreachable, unknown", tw.opts.Width, false))
		for _, l := range liveLines(ct) {
			tw.line(truncate(l, tw.opts.Width, false))
		}
	}
	tw.line("")
	tw.patches(ct)
}

// groupCells are the dimension cells of each row: a node's name on the
// first row under it only, marked when it is a manual gate.
func groupCells(targets []Target, depth int) [][]cell {
	out := make([][]cell, len(targets))
	for r, t := range targets {
		for d := range depth {
			c := cell{}
			if r == 0 || !samePrefix(targets[r-1].Path, t.Path, d+1) {
				c.text = t.Path[d]
				if isGate(t, d) {
					c.text += " (manual)"
					c.style = styleGate
				}
			}
			out[r] = append(out[r], c)
		}
	}
	return out
}

func isGate(t Target, depth int) bool {
	id := strings.Join(t.Path[:depth+1], "/")
	for _, g := range t.Gates {
		if g == id {
			return true
		}
	}
	return false
}

func samePrefix(a, b []string, n int) bool {
	if len(a) < n || len(b) < n {
		return false
	}
	for i := range n {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// shortRevision shortens a full commit hash to its first 12 digits, as git
// log --oneline would; other revisions are shown whole. JSON keeps them
// whole.
func shortRevision(r string) string {
	if len(r) != 40 && len(r) != 64 {
		return r
	}
	for _, c := range r {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return r
		}
	}
	return r[:12]
}

// CellText is a cell as the table shows it: the revisions (a commit hash
// shortened), then "+NNN" per
// patch in effect ("+001" for patch-001), "+NNN!" when a more specific file
// shadows a field of it there; "off" when every resource is disabled, "-"
// when there is none.
func CellText(c Cell) string {
	var b strings.Builder
	if len(c.Versions) > 0 {
		revs := c.Revisions()
		for i, r := range revs {
			revs[i] = shortRevision(r)
		}
		b.WriteString(strings.Join(revs, ","))
	} else if len(c.Disabled) > 0 {
		b.WriteString("off")
	} else {
		b.WriteString("-")
	}
	for _, p := range c.Patches {
		b.WriteString(" +")
		b.WriteString(strings.TrimPrefix(p, "patch-"))
		if c.IsShadowed(p) {
			b.WriteString("!")
		}
	}
	return b.String()
}

// matrixCell is a cell of the matrix. Its revisions are text from the
// repository: they are printed escaped (values.Printable), never as the
// control characters or escape sequences they may hold.
func matrixCell(c Cell) cell {
	out := cell{text: values.Printable(CellText(c))}
	if c.Live != nil {
		return cell{text: out.text + " " + StateWord(c.Live.State), style: stateStyle(c.Live.State)}
	}
	switch {
	case len(c.Patches) > 0:
		out.style = stylePatch
	case len(c.Versions) == 0:
		out.style = styleDim
	}
	return out
}

func (tw *tableWriter) patches(ct *ClusterType) {
	if len(ct.Patches) == 0 {
		tw.line("no patches rolling out")
		return
	}
	cols := []column{{header: "PATCH"}, {header: "AT", left: true}, {header: "TARGETS"}, {header: "NEXT", left: true}, {header: "GATES AHEAD"}}
	var rows [][]cell
	var problems, destructive []string
	for _, p := range ct.Patches {
		for _, l := range p.DeletionLines() {
			destructive = append(destructive, p.Component+"/"+p.Name+": "+l)
		}
		next := cell{text: p.Next}
		switch {
		case p.Problem != "":
			next = cell{text: "blocked", style: styleBad}
			problems = append(problems, p.Component+"/"+p.Name+": "+p.Problem)
		case p.Integrates:
			next.text = "values.yaml"
		case p.Next == "":
			next.text = "-"
		case len(p.NextGates) > 0:
			next.text += " (approve)"
			next.style = styleGate
		}
		gates := cell{text: "-"}
		if len(p.Gates) > 0 {
			gates = cell{text: strings.Join(p.Gates, ", "), style: styleGate}
		}
		if w := p.NextWave; w != nil && len(w.Nodes) > 1 {
			next.text = strings.Replace(next.text, p.Next, fmt.Sprintf("%s +%d", p.Next, len(w.Nodes)-1), 1)
		}
		rows = append(rows, []cell{
			{text: p.Component + "/" + p.Name, style: stylePatch},
			{text: p.Latest},
			{text: targetsText(p)},
			next, gates,
		})
	}
	cols, rows = waveColumn(ct.Patches, cols, rows)
	natural(cols, rows)
	if total := tableWidth(cols); tw.opts.Width > 0 && total > tw.opts.Width {
		tw.patchBlocks(cols, rows)
	} else {
		tw.rows(cols, rows, nil)
	}
	for _, p := range problems {
		tw.line(tw.style(truncate("blocked: "+p, tw.opts.Width, false), styleBad))
	}
	for _, d := range destructive {
		tw.line(tw.style(truncate("destructive: "+d, tw.opts.Width, false), styleBad))
	}
	for _, p := range ct.Patches {
		for _, u := range p.Unhealthy {
			tw.line(tw.style(truncate("unhealthy within maxUnhealthy: "+p.Component+"/"+p.Name+": "+u, tw.opts.Width, false), styleBad))
		}
	}
}

// patchBlocks writes the patches one block each, for a terminal too narrow
// for the patches table.
func (tw *tableWriter) patchBlocks(cols []column, rows [][]cell) {
	for _, r := range rows {
		tw.line(tw.style(truncate(r[0].text, tw.opts.Width, false), r[0].style) + "  " + r[2].text + " targets")
		for i, label := range []string{"", "at", "", "next", "gates"} {
			if label == "" {
				continue
			}
			text := truncate(r[i].text, tw.opts.Width-8, cols[i].left)
			tw.line(fmt.Sprintf("  %-6s%s", label, tw.style(text, r[i].style)))
		}
	}
}

func tableWidth(cols []column) int {
	total := -2
	for _, c := range cols {
		total += c.width + 2
	}
	return total
}

// natural sets each column's width to its widest cell or header.
func natural(cols []column, rows [][]cell) {
	for i := range cols {
		cols[i].width = utf8.RuneCountInString(cols[i].header)
		for _, r := range rows {
			cols[i].width = max(cols[i].width, utf8.RuneCountInString(r[i].text))
		}
	}
}

// rows writes a header and rows; targets, when given, start a blank line
// before each new first-level node.
func (tw *tableWriter) rows(cols []column, rows [][]cell, targets []Target) {
	head := make([]cell, len(cols))
	for i, c := range cols {
		head[i] = cell{text: c.header, style: styleHeader}
	}
	tw.row(cols, head)
	for r, row := range rows {
		if targets != nil && r > 0 && targets[r].Path[0] != targets[r-1].Path[0] {
			tw.line("")
		}
		tw.row(cols, row)
	}
}

func (tw *tableWriter) row(cols []column, cells []cell) {
	var b strings.Builder
	for i, c := range cols {
		text := truncate(cells[i].text, c.width, c.left)
		pad := c.width - utf8.RuneCountInString(text)
		if i == len(cols)-1 {
			pad = 0
		}
		b.WriteString(tw.style(text, cells[i].style))
		b.WriteString(strings.Repeat(" ", pad))
		if i < len(cols)-1 {
			b.WriteString("  ")
		}
	}
	tw.line(b.String())
}

func (tw *tableWriter) style(s, style string) string {
	if !tw.opts.Color || style == styleNone || s == "" {
		return s
	}
	return style + s + styleReset
}

// truncate shortens s to width runes with an ellipsis, at the end or (left)
// at the start.
func truncate(s string, width int, left bool) string {
	n := utf8.RuneCountInString(s)
	if n <= width || width <= 0 {
		return s
	}
	r := []rune(s)
	if left {
		return "…" + string(r[n-width+1:])
	}
	return string(r[:width-1]) + "…"
}

func pick(cols []column, idx []int) []column {
	out := make([]column, len(idx))
	for i, j := range idx {
		out[i] = cols[j]
	}
	return out
}

func pickRows(rows [][]cell, idx []int) [][]cell {
	out := make([][]cell, len(rows))
	for r, row := range rows {
		out[r] = make([]cell, len(idx))
		for i, j := range idx {
			out[r][i] = row[j]
		}
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// singular is a dimension's name without its plural "s", for headings.
func singular(name string) string {
	if s := strings.TrimRight(name, "s"); s != "" {
		return s
	}
	return name
}

// targetsText is "4/6", or "4/6 (2 shadowed)".
func targetsText(p Patch) string {
	s := fmt.Sprintf("%d/%d", p.Targets, p.Total)
	if p.Shadowed > 0 {
		s += fmt.Sprintf(" (%d shadowed)", p.Shadowed)
	}
	return s
}

func shadowed(ct *ClusterType) bool {
	for _, p := range ct.Patches {
		if p.Shadowed > 0 {
			return true
		}
	}
	return false
}

// waveColumn adds the WAVE column after AT when a patch is in a wave of
// config.yaml's rollout waves: "2/4 production" (the second of the four
// waves of production's nodes), "-" for a patch where none apply.
func waveColumn(ps []Patch, cols []column, rows [][]cell) ([]column, [][]cell) {
	if !slices.ContainsFunc(ps, func(p Patch) bool { return p.Wave != nil }) {
		return cols, rows
	}
	cols = slices.Insert(cols, 2, column{header: "WAVE", left: true})
	for i, p := range ps {
		c := cell{text: "-"}
		if w := p.Wave; w != nil {
			c.text = fmt.Sprintf("%d/%d %s", w.Number, w.Of, w.Group)
		}
		rows[i] = slices.Insert(rows[i], 2, c)
	}
	return cols, rows
}
