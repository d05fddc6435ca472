package promote

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/values"
)

// TestIntegrateEditsInPlace: folding a patch into values.yaml changes only
// the lines the patch changes, whatever the layout; where the text cannot
// be edited in place the result still decodes to the merge.
func TestIntegrateEditsInPlace(t *testing.T) {
	tests := []struct {
		name   string
		values string
		patch  string
		want   string // "" when only the decoded result is checked
	}{
		{
			name:   "a scalar takes the patch's token, the line keeps its comment",
			values: "a:\n  b: 'x'   # why\n  c: 1\n",
			patch:  "a:\n  b: \"y\"\n",
			want:   "a:\n  b: \"y\"   # why\n  c: 1\n",
		},
		{
			name:   "a new key goes at the end of its mapping with the patch's lines",
			values: "a:\n  b: 1\n\n# trailing comment\nz: 2\n",
			patch:  "a:\n  n:   # new\n    - 1\n    - 'two'\n",
			want:   "a:\n  b: 1\n  n:   # new\n    - 1\n    - 'two'\n\n# trailing comment\nz: 2\n",
		},
		{
			name:   "a file without a final line break",
			values: "a:\n  b: 1",
			patch:  "a:\n  c: 2\n",
			want:   "a:\n  b: 1\n  c: 2\n",
		},
		{
			name:   "a scalar replaced by a mapping",
			values: "a:\n  b: old # note\n  c: 1\n",
			patch:  "a:\n  b:\n    d: 1\n",
			want:   "a:\n  b:\n    d: 1\n  c: 1\n",
		},
		{
			name:   "a null replaced by a mapping",
			values: "a:\n  b:\n  c: 1\n",
			patch:  "a:\n  b:\n    d: 1\n",
			want:   "a:\n  b:\n    d: 1\n  c: 1\n",
		},
		{
			name:   "a list replaced by the patch's list",
			values: "a:\n  l:\n  - 1\n  - 2\n  c: 1\n",
			patch:  "a:\n  l: [3]\n",
			want:   "a:\n  l: [3]\n  c: 1\n",
		},
		{
			name:   "a mapping inside a list item",
			values: "a:\n  l:\n    - name: x\n      v: 1\n  c: 1\n",
			patch:  "a:\n  l:\n    - name: y\n",
			want:   "a:\n  l:\n    - name: y\n  c: 1\n",
		},
		{
			name:   "a block scalar replaced",
			values: "a:\n  s: |\n    one\n    two\n  c: 1\n",
			patch:  "a:\n  s: |\n    three\n",
			want:   "a:\n  s: |\n    three\n  c: 1\n",
		},
		{
			name:   "metadata at the top of the patch is left out, not elsewhere",
			values: "a:\n  b: 1\n",
			patch:  "---\n# a patch\nmetadata:\n  d: x\na:\n  metadata: kept\n",
			want:   "a:\n  b: 1\n  metadata: kept\n",
		},
		{
			name:   "a null in the patch is kept (null replaces)",
			values: "a:\n  b: 1\n  c: 2\n",
			patch:  "a:\n  b: null\n",
			want:   "a:\n  b: null\n  c: 2\n",
		},
		{
			name:   "a flow mapping in values.yaml stays a flow mapping",
			values: "x: 1\na: {b: 1, c: 2} # flow\n",
			patch:  "a:\n  c: 3\n",
			want:   "x: 1\na: {b: 1, c: 3} # flow\n",
		},
		{
			name:   "a flow patch",
			values: "a:\n  b: 1\n",
			patch:  "{a: {b: 2}}\n",
			want:   "a:\n  b: 2\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := integrate(fleet.NewFile(valuesPath, []byte(tt.values)), "patch-001.yaml", []byte(tt.patch))
			if err != nil {
				t.Fatal(err)
			}
			base, err := values.Decode("values", []byte(tt.values))
			if err != nil {
				t.Fatal(err)
			}
			content, err := fleet.PatchContent(fleet.NewFile("patch", []byte(tt.patch)))
			if err != nil {
				t.Fatal(err)
			}
			dec, err := values.Decode("got", got)
			if err != nil {
				t.Fatalf("result does not decode: %v\n%s", err, got)
			}
			if want := values.Merge(base, content); !values.Equal(want, dec) {
				t.Errorf("result decodes to\n%s\nwant the merge\n%s", values.Encode(dec), values.Encode(want))
			}
			if tt.want != "" {
				if diff := cmp.Diff(tt.want, string(got)); diff != "" {
					t.Errorf("values.yaml (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// anchored is a values.yaml whose two applications share a source through
// an anchor and an alias.
const anchored = `# shared source
applications:
  a:
    source: &src
      repoURL: r  # the repository
      targetRevision: '1.0'
  b:
    source: *src
`

// TestIntegrateWithAnchors: a values.yaml with anchors and aliases keeps
// its comments, quoting and anchors, or the fold is refused with the
// reason; it is never rewritten in strata's own style.
func TestIntegrateWithAnchors(t *testing.T) {
	tests := []struct {
		name, patch, want, err string
	}{
		{
			name:  "a change elsewhere is made in place",
			patch: "applications:\n  c:\n    project: x\n",
			want:  anchored + "  c:\n    project: x\n",
		},
		{
			name:  "a change under an alias becomes a merge key and the change",
			patch: "applications:\n  b:\n    source:\n      targetRevision: \"2.0\"  # new\n",
			want:  strings.Replace(anchored, "    source: *src\n", "    source:\n      <<: *src\n      targetRevision: \"2.0\"  # new\n", 1),
		},
		{
			name:  "a change of the anchored mapping, which the alias shares, is refused",
			patch: "applications:\n  a:\n    source:\n      targetRevision: '2.0'\n",
			err:   "config/management-cluster/test-app/values.yaml:4:13: cannot fold patch-001 into values.yaml keeping its comments, quoting and layout: it changes what the anchor &src holds, which its aliases share",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := integrate(fleet.NewFile(valuesPath, []byte(anchored)), "patch-001.yaml", []byte(tt.patch))
			if tt.err != "" {
				var e *values.Error
				if !errors.As(err, &e) || e.Pos.String()+": "+e.Msg != tt.err || !strings.Contains(e.Hint, "fold it by hand") {
					t.Fatalf("got %v, %q; want the error %q", err, got, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("values.yaml (-want +got):\n%s", diff)
			}
		})
	}
}
