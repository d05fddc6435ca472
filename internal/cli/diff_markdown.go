package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/strata-fleet/strata/internal/diff"
	"github.com/strata-fleet/strata/internal/git"
)

// Limits of the Markdown diff, a pull request comment: hosts refuse a
// comment over 65,536 characters (GitHub) or 1,000,000 (GitLab), so the
// unified diffs stop at a budget and the rest is named; a resource's diff
// longer than openLines lines is collapsed.
const (
	markdownBudget = 60000
	openLines      = 20
)

// printDiffMarkdown writes res as a pull request comment: the summary line,
// a table of the targets that change, then per target and resource its
// diff, collapsed where long. strata names a strata command for the
// reader to run (globals.strata: with --root when the run had it).
func printDiffMarkdown(w io.Writer, res *diff.Result, strata func(args ...string) string) {
	var b strings.Builder
	fmt.Fprintf(&b, "### strata diff: %s\n\n", res.Summary())
	base := res.Base
	if res.BaseCommit != "" {
		base = fmt.Sprintf("%s (%s)", res.Base, git.Short(res.BaseCommit))
	}
	fmt.Fprintf(&b, "Rendered output compared with `%s`.\n", base)
	if dels := res.Deletions(); len(dels) > 0 {
		fmt.Fprintf(&b, "\n> [!WARNING]\n> The change deletes %s:\n", plural(len(dels), "resource"))
		for _, d := range dels {
			fmt.Fprintf(&b, "> - %s\n", d)
		}
	}
	if len(res.Changes) == 0 {
		if res.Hydrated != nil {
			writeMarkdownHydrated(&b, res.Hydrated)
		}
		io.WriteString(w, b.String())
		return
	}
	b.WriteString("\n| target | status | resources |\n|---|---|---|\n")
	for _, t := range res.Changes {
		var names []string
		for _, f := range t.Files {
			names = append(names, markdownResource(f))
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", t.Target, t.Status, strings.Join(names, ", "))
	}
	b.WriteString("\n")
	left := 0
	for i, t := range res.Changes {
		var section strings.Builder
		fmt.Fprintf(&section, "#### `%s` (%s)\n\n", t.Target, t.Status)
		for _, f := range t.Files {
			writeMarkdownFile(&section, f)
		}
		if b.Len()+section.Len() > markdownBudget {
			left = len(res.Changes) - i
			break
		}
		b.WriteString(section.String())
	}
	if left > 0 {
		fmt.Fprintf(&b, "… and the diffs of %s more, past what a comment holds: run `%s` to see them.\n",
			plural(left, "target"), strata("diff", "--base", res.Base))
	}
	if res.Hydrated != nil {
		writeMarkdownHydrated(&b, res.Hydrated)
	}
	io.WriteString(w, b.String())
}

// writeMarkdownFile writes one resource's diff in a fenced block, inside a
// collapsed <details> when it is long.
func writeMarkdownFile(b *strings.Builder, f diff.ResourceChange) {
	fence := "```"
	for strings.Contains(f.Diff, fence) {
		fence += "`"
	}
	lines := strings.Count(f.Diff, "\n")
	long := lines > openLines
	if long {
		fmt.Fprintf(b, "<details><summary>%s: %s (%d lines)</summary>\n\n", markdownResource(f), f.Status, lines)
	} else {
		fmt.Fprintf(b, "%s: %s\n\n", markdownResource(f), f.Status)
	}
	fmt.Fprintf(b, "%sdiff\n%s", fence, f.Diff)
	if !strings.HasSuffix(f.Diff, "\n") {
		b.WriteString("\n")
	}
	b.WriteString(fence + "\n\n")
	if long {
		b.WriteString("</details>\n\n")
	}
}

func markdownResource(f diff.ResourceChange) string {
	if f.Kind == "" {
		return "`" + f.Name + "`"
	}
	return fmt.Sprintf("`%s` (%s)", f.Name, f.Kind)
}
