package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/strata-fleet/strata/internal/diff"
	"github.com/strata-fleet/strata/internal/hydrate"
)

// hydratedHeading names one source's change: the Application, the source,
// how it is built, and where.
func hydratedHeading(h diff.Hydrated) string {
	b := h.After
	if b == nil {
		b = h.Before
	}
	how := b.Where
	if b.Tool != "" {
		how = b.Tool + " " + b.Where
	}
	if h.Before != nil && h.After != nil && h.Before.Where != h.After.Where {
		how += " (was " + h.Before.Where + ")"
	}
	return fmt.Sprintf("%s %s, %s at %s", h.Application, h.Source, how, strings.Join(h.Targets, ", "))
}

// printHydrated writes what the change does to the objects the sources
// build, and what was not hydrated and why.
func printHydrated(w io.Writer, hs []diff.Hydrated, color bool) {
	changed := 0
	for _, h := range hs {
		if h.NotBuilt != "" {
			fmt.Fprintln(w, paint("not hydrated: "+hydratedHeading(h)+": "+h.NotBuilt, "\x1b[1;33m", color))
			continue
		}
		changed++
		fmt.Fprintln(w, paint("=== hydrated: "+hydratedHeading(h), "\x1b[1;33m", color))
		for _, o := range h.Objects {
			for _, line := range strings.SplitAfter(o.Diff, "\n") {
				if line != "" {
					fmt.Fprint(w, paint(strings.TrimSuffix(line, "\n"), diffColors[diff.LineKind(line)], color)+"\n")
				}
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, hydratedSummary(hs))
}

// hydratedSummary is one line: how many changed sources were not hydrated
// first (an all-clear that leaves some out is none), then how many
// sources' objects change.
func hydratedSummary(hs []diff.Hydrated) string {
	objects, sources, notBuilt := 0, 0, 0
	for _, h := range hs {
		if h.NotBuilt != "" {
			notBuilt++
			continue
		}
		sources++
		objects += len(h.Objects)
	}
	changes := fmt.Sprintf("%s change (%s)", plural(objects, "object"), plural(sources, "source"))
	switch {
	case notBuilt == 0 && sources == 0:
		return "hydrated: no object changes"
	case notBuilt == 0:
		return "hydrated: " + changes
	case sources == 0:
		return fmt.Sprintf("hydrated: %s not hydrated, their objects not compared (see above); no other source changes", plural(notBuilt, "changed source"))
	}
	return fmt.Sprintf("hydrated: %s not hydrated, their objects not compared (see above); %s", plural(notBuilt, "changed source"), changes)
}

// writeMarkdownHydrated adds the hydrated changes to a pull request
// comment.
func writeMarkdownHydrated(b *strings.Builder, hs []diff.Hydrated) {
	fmt.Fprintf(b, "\n#### %s\n\n", hydratedSummary(hs))
	for _, h := range hs {
		if h.NotBuilt != "" {
			fmt.Fprintf(b, "> [!NOTE]\n> Not hydrated: `%s`: %s\n\n", hydratedHeading(h), h.NotBuilt)
			continue
		}
		fmt.Fprintf(b, "<details><summary><code>%s</code>: %s</summary>\n\n", hydratedHeading(h), plural(len(h.Objects), "object"))
		for _, o := range h.Objects {
			fence := "```"
			for strings.Contains(o.Diff, fence) {
				fence += "`"
			}
			fmt.Fprintf(b, "%sdiff\n%s%s\n\n", fence, o.Diff, fence)
		}
		b.WriteString("</details>\n\n")
	}
}

// chartCache is Helm's repository cache ($HELM_CACHE_HOME/repository),
// where diff --hydrate looks for remote charts.
func chartCache() string { return hydrate.DefaultChartCache() }
