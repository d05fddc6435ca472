package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagIdeas names the idea of every flag of every command: one idea, one
// name, in every command that has it. A new flag is added here with the
// idea it names; a second name for an idea that has one fails
// TestFlagTable (make it an alias, in aliases, instead).
var flagIdeas = map[string]string{
	"abandon":                "drop an unfinished promotion",
	"addr":                   "where the web UI listens",
	"all":                    "every item at once (clusters to bootstrap, patches to roll out)",
	"allow-uncommitted":      "take a step on top of an uncommitted one",
	"allowed-host":           "host names the web UI answers",
	"apply":                  "write to the cluster, not print",
	"approve":                "manual gates a change may enter",
	"approver":               "who approves a gate",
	"argocd-namespace":       "the Argo CD namespace",
	"argocd-repo":            "the chart repository of Argo CD's install",
	"argocd-values":          "values of Argo CD's install",
	"argocd-version":         "the chart version of Argo CD's install",
	"at":                     "the node a new patch starts at",
	"base":                   "the Git revision compared with",
	"branch":                 "the branch a change is committed on",
	"by":                     "who freezes or unfreezes",
	"ca-file":                "the CA of a spoke's API server",
	"changed-since":          "only what changed since a revision",
	"check":                  "check, write nothing",
	"cluster-context":        "the kubeconfig context of a cluster, NAME=CONTEXT",
	"cluster-type":           "one cluster type only",
	"name":                   "a named revision",
	"cluster-type-name":      "the name of the cluster type an import makes",
	"cluster-secret":         "a file of cluster Secrets an import reads beside the repository",
	"dimensions":             "the names of a new fleet's dimensions",
	"into":                   "the directory a new fleet is written into",
	"commit":                 "commit the change",
	"component":              "some components only",
	"context":                "the kubeconfig context",
	"credentials-context":    "the kubeconfig context of a spoke's credentials",
	"credentials-kubeconfig": "the kubeconfig of a spoke's credentials",
	"description":            "what a change is",
	"dry-run":                "print what would change, change nothing",
	"exit-code":              "exit 1 on a difference",
	"file":                   "a file to read (- for standard input)",
	"force":                  "go on where strata would refuse",
	"html":                   "an HTML page",
	"hold-interval":          "how often held rollouts read their freezes and conditions again",
	"hydrate":                "compare what the sources build",
	"install-argocd":         "install Argo CD first",
	"interval":               "how often the repository is read again",
	"kubeconfig":             "the kubeconfig",
	"level":                  "the dimension promotions land at",
	"list":                   "list, change nothing",
	"rerun-checks":           "run checks again rather than reuse the recorded passes",
	"live":                   "what Argo CD says",
	"live-interval":          "how often Argo CD is read again",
	"live-timeout":           "how long reading Argo CD may take",
	"no-cache":               "ignore the render state",
	"no-commit":              "leave committing to the user",
	"no-descriptions":        "completion without descriptions",
	"no-git":                 "no Git repository",
	"no-render":              "do not render afterwards",
	"on-failure":             "what a failed step does",
	"once":                   "do what can be done now and exit",
	"watch":                  "keep running",
	"metrics-addr":           "where metrics and /healthz are served",
	"webhook-addr":           "where push webhooks are accepted",
	"webhook-secret-file":    "the secret push webhooks are signed with",
	"rollout-config":         "a runner's own stopWhen conditions and checks",
	"lease":                  "the Lease that elects a leader",
	"output":                 "the output format",
	"owner":                  "who owns a change",
	"patch":                  "one patch only",
	"push":                   "push the commit",
	"quiet":                  "print less",
	"reason":                 "why",
	"remote":                 "the remote pushed to",
	"repo-url":               "the URL Argo CD pulls the repository from",
	"resume":                 "complete an interrupted promotion",
	"root":                   "the fleet repository",
	"selector":               "clusters by label",
	"self-app":               "the Application through which Argo CD manages itself",
	"soak":                   "how long a step stays healthy",
	"target":                 "targets matching a glob",
	"ticket":                 "the ticket of a change",
	"timeout":                "how long the command's work may take",
	"token-file":             "a spoke's bearer token",
	"until":                  "stop under a node",
	"verbose":                "print more",
	"wait":                   "how long to wait for the repository lock",
	"yes":                    "do not ask",
}

// commandFlags lists, for each flag name, the commands that have it and
// each one's usage, walking every command strata has.
func commandFlags() map[string][][2]string {
	root := newRoot(&globals{stdout: io.Discard, stderr: io.Discard})
	out := map[string][][2]string{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
			if f.Name != "help" && !f.Hidden {
				out[f.Name] = append(out[f.Name], [2]string{c.CommandPath(), f.Usage})
			}
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	root.PersistentFlags().VisitAll(func(f *pflag.Flag) {
		out[f.Name] = append(out[f.Name], [2]string{"strata (every command)", f.Usage})
	})
	return out
}

// TestFlagTable checks that every flag names an idea of flagIdeas and that
// no idea has two names, and that docs/flags.md is the table of them all
// (rewritten with -update).
func TestFlagTable(t *testing.T) {
	flags := commandFlags()
	names := map[string][]string{}
	for name, uses := range flags {
		idea, ok := flagIdeas[name]
		if !ok {
			t.Errorf("--%s (%s) names no idea in flagIdeas: add it with the idea it names; if another flag names that idea already, use that flag's name (or make this one an alias)", name, uses[0][0])
			continue
		}
		names[idea] = append(names[idea], name)
	}
	for idea, ns := range names {
		if len(ns) > 1 {
			sort.Strings(ns)
			t.Errorf("the idea %q has %d names: --%s; keep one and make the others aliases (aliases in flagnames.go)", idea, len(ns), strings.Join(ns, ", --"))
		}
	}
	for name := range flagIdeas {
		if _, ok := flags[name]; !ok {
			t.Errorf("flagIdeas names --%s, which no command has: remove it", name)
		}
	}
	for alias, to := range aliases {
		if _, ok := flags[to]; !ok {
			t.Errorf("the alias --%s names --%s, which no command has", alias, to)
		}
	}
	got := flagTable(flags)
	const file = "../../docs/flags.md"
	// -update is defined by the package's external tests (script_test.go).
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != got {
		t.Errorf("docs/flags.md is not the table of today's flags: go test ./internal/cli -run TestFlagTable -update")
	}
}

// flagTable is docs/flags.md: one row per idea, its one name, the commands
// that take it and what each says of it.
func flagTable(flags map[string][][2]string) string {
	var b strings.Builder
	b.WriteString(`# Flags

One idea, one name: every command that takes an idea takes it under the same flag. This page is generated from the
commands (` + "`go test ./internal/cli -run TestFlagTable -update`" + `); the test fails when a flag names no idea, or
when an idea gets a second name.

| idea | flag | commands: what each says |
|---|---|---|
`)
	byIdea := map[string]string{}
	var ideas []string
	for name := range flags {
		idea := flagIdeas[name]
		byIdea[idea] = name
		ideas = append(ideas, idea)
	}
	slices.Sort(ideas)
	for _, idea := range slices.Compact(ideas) {
		name := byIdea[idea]
		var uses []string
		for _, u := range flags[name] {
			uses = append(uses, fmt.Sprintf("`%s`: %s", u[0], strings.ReplaceAll(u[1], "|", `\|`)))
		}
		flag := "`--" + name + "`"
		for alias, to := range aliases {
			if to == name {
				flag += " (alias `--" + alias + "`)"
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", idea, flag, strings.Join(uses, "<br>"))
	}
	return b.String()
}

func TestFlagAliasesStillWork(t *testing.T) {
	cmd := newBootstrapCmd(&globals{stdout: io.Discard, stderr: io.Discard})
	if err := cmd.ParseFlags([]string{"--namespace", "argo"}); err != nil {
		t.Fatal(err)
	}
	if got := cmd.Flags().Lookup("argocd-namespace").Value.String(); got != "argo" {
		t.Errorf("bootstrap --namespace argo: --argocd-namespace is %q", got)
	}
}
