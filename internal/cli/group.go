package cli

import (
	"fmt"
	"strings"
)

// shownNames is how many names a grouped line lists before "and N more".
const shownNames = 3

// nameList summarises the names a grouped line applies to: all of them
// under -v (or when there are few), else the first shownNames and how many
// more, so that one plan or finding over 200 targets is one line.
func nameList(names []string, verbose bool) string {
	if verbose || len(names) <= shownNames+1 {
		return strings.Join(names, ", ")
	}
	return shortList(names) + " (-v lists them)"
}

// shortList is names cut as nameList cuts them, without the hint at -v:
// for text read elsewhere than on the terminal (a commit message).
func shortList(names []string) string {
	if len(names) <= shownNames+1 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:shownNames], ", "), len(names)-shownNames)
}

// group collects items that print alike under one key, in the order the
// keys first appear, with the names (targets, nodes) each applies to.
type group[K comparable] struct {
	keys  []K
	names map[K][]string
}

func (g *group[K]) add(k K, name string) {
	if g.names == nil {
		g.names = map[K][]string{}
	}
	if _, ok := g.names[k]; !ok {
		g.keys = append(g.keys, k)
	}
	g.names[k] = append(g.names[k], name)
}
