// Command realcmp is hack/real-repos.sh's comparison: it compares the Argo
// CD objects a repository's own tooling gives with those strata renders
// from its import, and says of each difference whether the import report
// names it.
//
//	realcmp compare [-report import.json] WANT GOT
//	realcmp source [-cluster-secret FILE]... FORMAT SOURCE OUT
//
// compare reads every YAML file under WANT and GOT (directories, files
// named alike on both sides: one per target): a document with kind and
// metadata.name is the object "file Kind/name", any other the data
// "file (data)". It prints one line per object, equal or each field that
// differs, and a summary; it exits 1 when a difference is not in the
// report. source writes, per target of SOURCE read in FORMAT, the objects
// the import reads from the repository (for eks-fleet, the Applications its
// in-process ApplicationSet evaluation gives per cluster Secret, checked
// against Argo CD's controller by TestE2EImportEKSFleet) to
// OUT/<cluster>.yaml, the target's last path element.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/strata-fleet/strata/internal/importer"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: realcmp compare|source ...")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "compare":
		err = compare(os.Args[2:], os.Stdout)
	case "source":
		err = source(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %s", os.Args[1])
	}
	if errors.Is(err, errUnreported) {
		os.Exit(1)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "realcmp:", err)
		os.Exit(2)
	}
}

var errUnreported = errors.New("a difference the import report does not name")

type secrets []string

func (s *secrets) String() string     { return strings.Join(*s, ",") }
func (s *secrets) Set(v string) error { *s = append(*s, v); return nil }

func source(args []string) error {
	fl := flag.NewFlagSet("source", flag.ContinueOnError)
	var files secrets
	fl.Var(&files, "cluster-secret", "a file of cluster Secrets (repeatable)")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if fl.NArg() != 3 {
		return errors.New("usage: realcmp source [-cluster-secret FILE]... FORMAT SOURCE OUT")
	}
	format, err := importer.Lookup(fl.Arg(0))
	if err != nil {
		return err
	}
	opts := importer.Options{Dir: "."}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		opts.ClusterSecrets = append(opts.ClusterSecrets, importer.SecretFile{File: f, Data: data})
	}
	src, err := format.Read(os.DirFS(fl.Arg(1)), opts)
	if err != nil {
		return err
	}
	for _, t := range src.Targets {
		var b strings.Builder
		for _, o := range t.Objects {
			data, err := yaml.Marshal(o.Doc)
			if err != nil {
				return err
			}
			b.WriteString("---\n")
			b.Write(data)
		}
		out := filepath.Join(fl.Arg(2), t.Path[len(t.Path)-1]+".yaml")
		if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func compare(args []string, w io.Writer) error {
	fl := flag.NewFlagSet("compare", flag.ContinueOnError)
	report := fl.String("report", "", "strata import -o json's output")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if fl.NArg() != 2 {
		return errors.New("usage: realcmp compare [-report import.json] WANT GOT")
	}
	var findings []importer.Finding
	if *report != "" {
		data, err := os.ReadFile(*report)
		if err != nil {
			return err
		}
		var rep struct{ Findings []importer.Finding }
		if err := json.Unmarshal(data, &rep); err != nil {
			return fmt.Errorf("%s: %w", *report, err)
		}
		findings = rep.Findings
	}
	want, err := objects(fl.Arg(0))
	if err != nil {
		return err
	}
	got, err := objects(fl.Arg(1))
	if err != nil {
		return err
	}
	var equal, different, unreported int
	for _, k := range keys(want, got) {
		var diffs []string
		switch w, g := want[k], got[k]; {
		case g == nil:
			diffs = []string{"not rendered by strata"}
		case w == nil:
			diffs = []string{"rendered by strata, not by the repository's tooling"}
		default:
			diffs = importer.Differences(w, g)
		}
		if len(diffs) == 0 {
			equal++
			fmt.Fprintf(w, "  equal      %s\n", k)
			continue
		}
		different++
		for _, d := range diffs {
			named := reported(findings, k, d)
			mark := "in the report"
			if !named {
				mark, unreported = "NOT IN THE REPORT", unreported+1
			}
			fmt.Fprintf(w, "  different  %s: %s [%s]\n", k, d, mark)
		}
	}
	faults := 0
	for _, f := range findings {
		if f.Fault {
			faults++
		}
	}
	fmt.Fprintf(w, "compared %d objects: %d equal, %d different (%d differences not in the report); the report: %d findings, %d faults of the repository\n",
		equal+different, equal, different, unreported, len(findings), faults)
	if unreported > 0 {
		return errUnreported
	}
	return nil
}

// reported says whether a finding names the object of key (its Kind/name)
// and, when the finding names a field, the field the difference is at.
func reported(findings []importer.Finding, key, diff string) bool {
	_, obj, _ := strings.Cut(key, " ")
	field, _, _ := strings.Cut(diff, ":")
	for _, f := range findings {
		if f.Object == "" || f.Object != obj {
			continue
		}
		if f.Field == "" || strings.HasPrefix(field, f.Field) {
			return true
		}
	}
	return false
}

func keys(a, b map[string]map[string]any) []string {
	seen := map[string]bool{}
	for k := range a {
		seen[k] = true
	}
	for k := range b {
		seen[k] = true
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// objects reads every YAML file under dir: key "file Kind/name" (file
// relative to dir), or "file (data)" for a document that is no object.
func objects(dir string) (map[string]map[string]any, error) {
	out := map[string]map[string]any{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") && !strings.HasSuffix(p, ".yml") {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for i, doc := range strings.Split("\n"+string(data), "\n---") {
			var m map[string]any
			if err := sigsyaml.Unmarshal([]byte(doc), &m); err != nil {
				return fmt.Errorf("%s, document %d: %w", p, i+1, err)
			}
			if m == nil {
				continue
			}
			key := rel + " (data)"
			kind, _ := m["kind"].(string)
			md, _ := m["metadata"].(map[string]any)
			if name, _ := md["name"].(string); kind != "" && name != "" {
				key = rel + " " + kind + "/" + name
			}
			if _, ok := out[key]; ok {
				return fmt.Errorf("%s: %s twice", p, key)
			}
			out[key] = m
		}
		return nil
	})
	return out, err
}
