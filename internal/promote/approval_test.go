package promote

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var approvalAt = time.Date(2026, 11, 23, 21, 40, 0, 0, time.UTC)

func TestRecordApprovalKeepsLayout(t *testing.T) {
	a := Approval{Node: "production", By: "Jane Doe <jane@example.com>", At: approvalAt}
	tests := []struct {
		name, in, want string
	}{
		{
			name: "no metadata: a block before the first key, comments kept",
			in:   "# bump cert-manager\napplications:\n  cert-manager:\n    source: {targetRevision: v1.16.0} # new\n",
			want: "# bump cert-manager\nmetadata:\n  approvals:\n    - node: production\n      by: Jane Doe <jane@example.com>\n      at: \"2026-11-23T21:40:00Z\"\napplications:\n  cert-manager:\n    source: {targetRevision: v1.16.0} # new\n",
		},
		{
			name: "metadata without approvals: appended to it",
			in:   "metadata:\n  description: \"Upgrade\" # why\napplications:\n  a: {b: 1}\n",
			want: "metadata:\n  description: \"Upgrade\" # why\n  approvals:\n    - node: production\n      by: Jane Doe <jane@example.com>\n      at: \"2026-11-23T21:40:00Z\"\napplications:\n  a: {b: 1}\n",
		},
		{
			name: "approvals already: one more item, in their indentation",
			in:   "metadata:\n    approvals:\n    - node: stage\n      by: Bob <bob@example.com>\n      at: \"2026-11-20T10:00:00Z\"\napplications:\n  a: {b: 1}\n",
			want: "metadata:\n    approvals:\n    - node: stage\n      by: Bob <bob@example.com>\n      at: \"2026-11-20T10:00:00Z\"\n    - node: production\n      by: Jane Doe <jane@example.com>\n      at: \"2026-11-23T21:40:00Z\"\napplications:\n  a: {b: 1}\n",
		},
		{
			name: "flow metadata: rewritten as a block",
			in:   "metadata: {description: x}\napplications:\n  a: {b: 1}\n",
			want: "metadata:\n  description: x\n  approvals:\n    - node: production\n      by: Jane Doe <jane@example.com>\n      at: \"2026-11-23T21:40:00Z\"\napplications:\n  a: {b: 1}\n",
		},
		{
			name: "metadata last, no final newline",
			in:   "applications:\n  a: {b: 1}\nmetadata:\n  description: x",
			want: "applications:\n  a: {b: 1}\nmetadata:\n  description: x\n  approvals:\n    - node: production\n      by: Jane Doe <jane@example.com>\n      at: \"2026-11-23T21:40:00Z\"\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := RecordApproval([]byte(tt.in), a)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
			as, err := Approvals("p.yaml", got)
			if err != nil || len(as) == 0 || !sameApproval(as[len(as)-1], a) {
				t.Errorf("Approvals of the result = %v, %v; want it to end with %v", as, err, a)
			}
			again, err := RecordApproval(got, a)
			if err != nil || string(again) != string(got) {
				t.Errorf("recording the same approval twice changed the file:\n%s", again)
			}
		})
	}
}

func TestRecordApprovalQuotesWhatNeedsIt(t *testing.T) {
	got, err := RecordApproval([]byte("a: 1\n"), Approval{Node: "prod", By: "O'Neil: ops #1", At: approvalAt})
	if err != nil {
		t.Fatal(err)
	}
	as, err := Approvals("p.yaml", got)
	if err != nil || len(as) != 1 || as[0].By != "O'Neil: ops #1" {
		t.Fatalf("got %v, %v from\n%s", as, err, got)
	}
}

func TestApprovalsErrorsNameTheLine(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"not a list", "metadata:\n  approvals: yes\n", "metadata.approvals: expected a list of approvals\n    p.yaml:2:14"},
		{"no approver", "metadata:\n  approvals:\n    - node: prod\n      at: \"2026-11-23T21:40:00Z\"\n", "metadata.approvals: an approval names the gate (node) and who approved (by)\n    p.yaml:3:7"},
		{"bad time", "metadata:\n  approvals:\n    - {node: prod, by: me, at: yesterday}\n", `metadata.approvals.at: "yesterday" is not an RFC 3339 time` + "\n    p.yaml:3:7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Approvals("p.yaml", []byte(tt.in))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("got %v, want %s", err, tt.want)
			}
		})
	}
}

// TestPrepareRecordsTheApprovalOfEachGate: a promotion into a manual gate
// with an approver records the approval in the new copy; copies coalesced
// later keep every approval any of them records.
func TestPrepareRecordsTheApprovalOfEachGate(t *testing.T) {
	f := newFleet(t, seedConfig, patchesAt("integration", "stage"))
	p := mustPrepare(t, f, Options{Approve: true, Approver: "Jane Doe <jane@example.com>", Now: approvalAt})
	if diff := cmp.Diff([]string{"production"}, p.Gates); diff != "" {
		t.Fatalf("gates (-want +got)\n%s", diff)
	}
	as, err := Approvals(p.TargetFile, p.Ops[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	want := []Approval{{Node: "production", By: "Jane Doe <jane@example.com>", At: approvalAt}}
	if diff := cmp.Diff(want, as, cmpApproval); diff != "" {
		t.Errorf("approvals of %s (-want +got)\n%s", p.TargetFile, diff)
	}
	if !strings.HasSuffix(string(p.Ops[0].Data), testPatch) {
		t.Errorf("the copy's content changed beyond its metadata:\n%s", p.Ops[0].Data)
	}

	// Without an approver nothing is recorded (planning, as status does).
	p = mustPrepare(t, f, Options{Approve: true})
	if as, _ := Approvals(p.TargetFile, p.Ops[0].Data); len(as) != 0 {
		t.Errorf("approvals recorded without an approver: %v", as)
	}
}

func TestCoalescingKeepsEveryApproval(t *testing.T) {
	canary := "metadata:\n  approvals:\n    - {node: production, by: Jane, at: \"2026-11-23T21:40:00Z\"}\n" + testPatch
	sector := "metadata:\n  approvals:\n    - {node: production, by: Jane, at: \"2026-11-23T21:40:00Z\"}\n    - {node: production/prod-sector-1, by: Bob, at: \"2026-11-24T08:00:00Z\"}\n" + testPatch
	// An environment after production, so that the patch is not folded.
	config := strings.Replace(seedConfig, "\n# Cluster type definitions", "    - name: archive\n      sectors: [{name: a1, regions: [{name: r1}]}]\n", 1)
	f := newFleet(t, config, with(patchesAt("integration", "stage"), map[string]string{
		patchFile("production/prod-canary", "patch-001"):            canary,
		patchFile("production/prod-sector-1/us-east1", "patch-001"): sector,
	}))
	p := mustPrepare(t, f, Options{Approve: true, Level: "regions", Approver: "Carol", Now: approvalAt})
	var got []string
	for _, op := range p.Ops {
		if op.Kind == "write" && strings.HasSuffix(op.Path, "production/patch-001.yaml") {
			as, err := Approvals(op.Path, op.Data)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range as {
				got = append(got, a.Node+" by "+a.By)
			}
		}
	}
	want := []string{"production by Jane", "production/prod-sector-1 by Bob"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("approvals of the coalesced copy (-want +got)\n%s\nplan: %v", diff, opList(p))
	}
}

var cmpApproval = cmp.Comparer(func(a, b Approval) bool { return sameApproval(a, b) })
