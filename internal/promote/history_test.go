package promote

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"

	"github.com/strata-fleet/strata/internal/values"
)

const metaPatch = `metadata:
  description: test-app 2.0.0
  owner: platform@example.com
  ticket: OPS-42
  created: "2026-11-01"
` + testPatch

const approvedPatch = `metadata:
  description: test-app 2.0.0
  owner: platform@example.com
  ticket: OPS-42
  created: "2026-11-01"
  approvals:
    - node: production
      by: Jane <jane@example.com>
      at: "2026-11-20T10:00:00Z"
` + testPatch

var foldTime = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

// foldFiles has the patch everywhere: the next promotion folds it.
func foldFiles(extra map[string]string) map[string]string {
	return with(map[string]string{
		patchFile("integration", "patch-001"): metaPatch,
		patchFile("stage", "patch-001"):       metaPatch,
		patchFile("production", "patch-001"):  approvedPatch,
	}, extra)
}

func historyWrite(t *testing.T, p *Plan) string {
	t.Helper()
	for _, op := range p.Ops {
		if op.Path == historyPath {
			return string(op.Data)
		}
	}
	t.Fatalf("the fold writes no %s: %v", historyPath, opList(p))
	return ""
}

// TestFoldRecordsHistory: folding a patch records in history.yaml what its
// metadata said and every approval of its copies; the plan carries the
// same metadata for the commit.
func TestFoldRecordsHistory(t *testing.T) {
	p := mustPrepare(t, newFleet(t, realConfig, foldFiles(nil)), Options{Now: foldTime})
	if p.History != historyPath || p.Integrated != valuesPath {
		t.Fatalf("History %q, Integrated %q", p.History, p.Integrated)
	}
	want := historyHeader + `  - patch: patch-001
    folded: "2026-11-24T12:00:00Z"
    description: test-app 2.0.0
    owner: platform@example.com
    ticket: OPS-42
    created: "2026-11-01"
    approvals:
      - node: production
        by: Jane <jane@example.com>
        at: "2026-11-20T10:00:00Z"
`
	if diff := cmp.Diff(want, historyWrite(t, p)); diff != "" {
		t.Errorf("history.yaml (-want +got):\n%s", diff)
	}
	wantMeta := &PatchMeta{Description: "test-app 2.0.0", Owner: "platform@example.com", Ticket: "OPS-42", Created: "2026-11-01",
		Approvals: []Approval{{Node: "production", By: "Jane <jane@example.com>", At: time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)}}}
	if diff := cmp.Diff(wantMeta, p.Meta, cmp.Comparer(sameApproval)); diff != "" {
		t.Errorf("plan metadata (-want +got):\n%s", diff)
	}
}

// TestFoldAppendsHistory: a history file is appended to at the
// indentation of its items; one strata cannot append to is refused with
// its position, before anything is done.
func TestFoldAppendsHistory(t *testing.T) {
	for _, tc := range []struct{ name, old, wantTail, err string }{
		{name: "items at column 1", old: "folds:\n- patch: patch-000\n  folded: \"2026-01-01T00:00:00Z\"\n",
			wantTail: "  folded: \"2026-01-01T00:00:00Z\"\n- patch: patch-001\n  folded:"},
		{name: "no newline at the end", old: "# mine\nfolds:\n  - patch: patch-000\n    folded: x",
			wantTail: "    folded: x\n  - patch: patch-001\n"},
		{name: "an empty list", old: "folds:\n", wantTail: "folds:\n  - patch: patch-001\n"},
		{name: "a flow list", old: "folds: []\n", err: "folds: expected a block list\n\t" + historyPath + ":1:8"},
		{name: "another key", old: "folds:\n  - patch: x\nnotes: mine\n", err: "expected one key, folds\n\t" + historyPath + ":1:1"},
		{name: "a list", old: "- patch: x\n", err: "expected a mapping with a folds list\n\t" + historyPath + ":1:1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := prepare(t, newFleet(t, realConfig, foldFiles(map[string]string{historyPath: tc.old})), Options{Now: foldTime})
			if tc.err != "" {
				var ve *values.Error
				msg, at, _ := strings.Cut(tc.err, "\n\t")
				if !errors.As(err, &ve) || ve.Msg != msg || !strings.Contains(err.Error(), at) {
					t.Fatalf("err = %v, want %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := historyWrite(t, p)
			if !strings.HasPrefix(got, strings.TrimSuffix(tc.old, "\n")) || !strings.Contains(got, tc.wantTail) {
				t.Errorf("history.yaml:\n%s\nwant the old text, then ...%s", got, tc.wantTail)
			}
			var doc struct{ Folds []Fold }
			if err := yaml.Unmarshal([]byte(got), &doc); err != nil || doc.Folds[len(doc.Folds)-1].Description != "test-app 2.0.0" {
				t.Errorf("history.yaml does not end with the fold: %v %+v", err, doc)
			}
		})
	}
}

// TestHistoryIsNotValues: a history file does not change what the
// component's targets get, and the loader takes it as it is (it is not
// checked as values).
func TestHistoryIsNotValues(t *testing.T) {
	withHistory := newFleet(t, realConfig, map[string]string{historyPath: "folds:\n  - patch: patch-000\n    applications: {not: values}\n"})
	without := newFleet(t, realConfig, nil)
	if got := withHistory.ClusterType(ct).Component(app).History; got == nil || got.Path != historyPath {
		t.Fatalf("History = %v", got)
	}
	a, b := targetValues(t, withHistory), targetValues(t, without)
	for id, v := range b {
		if !values.Equal(v, a[id]) {
			t.Errorf("%s: a history file changed the values:\n%s", id, values.Encode(a[id]))
		}
	}
}
