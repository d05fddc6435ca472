package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/strata-fleet/strata/internal/diff"
)

// lines returns a unified diff body of n changed lines.
func lines(n int) string {
	var b strings.Builder
	b.WriteString("@@ -1 +1 @@\n")
	for i := range n {
		fmt.Fprintf(&b, "+line %d\n", i)
	}
	return b.String()
}

func TestDiffMarkdownCollapsesLongDiffs(t *testing.T) {
	res := &diff.Result{Base: "HEAD", Targets: 2, Changed: 2, Changes: []diff.TargetChange{
		{Target: "prod/a", Status: "changed", Files: []diff.ResourceChange{{Name: "short", Kind: "Application", Status: "changed", Diff: lines(3)}}},
		{Target: "prod/b", Status: "changed", Files: []diff.ResourceChange{{Name: "long", Kind: "Application", Status: "changed", Diff: lines(openLines + 5)}}},
	}}
	var b strings.Builder
	printDiffMarkdown(&b, res, (&globals{}).strata)
	out := b.String()
	if strings.Count(out, "<details>") != 1 || !strings.Contains(out, "<details><summary>`long` (Application): changed (26 lines)</summary>") {
		t.Errorf("want only the long diff collapsed, got:\n%s", out)
	}
	if !strings.Contains(out, "`short` (Application): changed\n\n```diff\n") {
		t.Errorf("want the short diff open, got:\n%s", out)
	}
}

// The diffs left out are named with the command that shows them, run
// against the repository the run was given (--root).
func TestDiffMarkdownStaysWithinACommentAndNamesTheRest(t *testing.T) {
	res := &diff.Result{Base: "origin/main...", Targets: 100, Changed: 100}
	for i := range 100 {
		res.Changes = append(res.Changes, diff.TargetChange{Target: fmt.Sprintf("prod/r%d", i), Status: "changed",
			Files: []diff.ResourceChange{{Name: "app", Kind: "Application", Status: "changed", Diff: lines(200)}}})
	}
	var b strings.Builder
	printDiffMarkdown(&b, res, (&globals{root: "my fleet"}).strata)
	out := b.String()
	if len(out) > 65536 {
		t.Errorf("comment is %d characters, over GitHub's 65,536", len(out))
	}
	if !strings.Contains(out, "more, past what a comment holds: run `strata --root 'my fleet' diff --base origin/main...` to see them.") {
		t.Errorf("want the targets left out named, got the end:\n%s", out[len(out)-300:])
	}
	if !strings.Contains(out, "| `prod/r99` | changed |") {
		t.Error("the table must list every target, even those whose diffs are left out")
	}
}

func TestDiffMarkdownFenceOutlastsBackticksInTheDiff(t *testing.T) {
	res := &diff.Result{Base: "HEAD", Targets: 1, Changed: 1, Changes: []diff.TargetChange{
		{Target: "prod/a", Status: "changed", Files: []diff.ResourceChange{{Name: "x", Status: "changed", Diff: "+a: \"```\"\n"}}},
	}}
	var b strings.Builder
	printDiffMarkdown(&b, res, (&globals{}).strata)
	if !strings.Contains(b.String(), "````diff\n+a: \"```\"\n````\n") {
		t.Errorf("want a four-backtick fence, got:\n%s", b.String())
	}
}
