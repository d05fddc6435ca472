package validate

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// corpusCase is one object of testdata/corpus: its file, content and the
// problems its "# want: PATH: MESSAGE" comment lines expect (none: the
// object is valid).
type corpusCase struct {
	name string
	data []byte
	want []Problem
}

func loadCorpus(t *testing.T) []corpusCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no corpus files")
	}
	var cases []corpusCase
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c := corpusCase{name: strings.TrimSuffix(filepath.Base(f), ".yaml"), data: data}
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			line, ok := strings.CutPrefix(sc.Text(), "# want: ")
			if !ok {
				continue
			}
			path, msg, _ := strings.Cut(line, ": ")
			c.want = append(c.want, Problem{Path: path, Message: msg})
		}
		cases = append(cases, c)
	}
	return cases
}

// TestCorpus checks every corpus object: the invalid ones get exactly the
// problems their comments list (a message may be given by its beginning),
// the valid ones none.
func TestCorpus(t *testing.T) {
	s, err := ArgoCD()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range loadCorpus(t) {
		t.Run(c.name, func(t *testing.T) {
			got, ok, err := s.CheckYAML(c.data)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				t.Fatal("not recognised as an Argo CD resource")
			}
			// A wanted message may be the beginning of the one got.
			for i := range min(len(got), len(c.want)) {
				if got[i].Path == c.want[i].Path && strings.HasPrefix(got[i].Message, c.want[i].Message) {
					got[i].Message = c.want[i].Message
				}
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}
