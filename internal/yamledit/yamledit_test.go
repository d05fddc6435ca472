package yamledit_test

import (
	"testing"

	"github.com/strata-fleet/strata/internal/yamledit"
)

const src = `# a comment
a: plain   # trailing
b: "quoted, with # and ]"
c: 'it''s'
list: [one, "two, three", {x: [1, 2]}]
map: {k: v, n: {deep: "}"}}
block:
  - item
`

func TestEnds(t *testing.T) {
	d, err := yamledit.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	text := func(start, end int) string { return string(d.Src[start:end]) }
	for key, want := range map[string]string{"a": "plain", "b": `"quoted, with # and ]"`, "c": `'it''s'`} {
		_, v := yamledit.Find(d.Root, key)
		end, err := d.ScalarEnd(v, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := text(d.Start(v), end); got != want {
			t.Errorf("%s: scalar %q, want %q", key, got, want)
		}
	}
	_, list := yamledit.Find(d.Root, "list")
	end, err := d.ScalarEnd(list.Content[0], true)
	if err != nil {
		t.Fatal(err)
	}
	if got := text(d.Start(list.Content[0]), end); got != "one" {
		t.Errorf("first flow item = %q, want one", got)
	}
	for key, want := range map[string]string{"list": `[one, "two, three", {x: [1, 2]}]`, "map": `{k: v, n: {deep: "}"}}`} {
		_, v := yamledit.Find(d.Root, key)
		if !yamledit.IsFlow(v) {
			t.Fatalf("%s is not flow", key)
		}
		end, err := d.FlowEnd(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := text(d.Start(v), end); got != want {
			t.Errorf("%s: flow %q, want %q", key, got, want)
		}
	}
	_, block := yamledit.Find(d.Root, "block")
	if _, err := d.FlowEnd(block); err == nil {
		t.Error("FlowEnd of a block sequence succeeded")
	}
	if got := yamledit.LastLine(block); got != 8 {
		t.Errorf("last line of block = %d, want 8", got)
	}
}

func TestApply(t *testing.T) {
	got := yamledit.Apply([]byte("a: 1\nb: 2\n"), []yamledit.Edit{
		{Start: 3, End: 4, Text: "one"},
		{Start: 10, End: 10, Text: "c: 3\n"},
		{Start: 8, End: 9, Text: "two"},
	})
	if want := "a: one\nb: two\nc: 3\n"; string(got) != want {
		t.Errorf("Apply = %q, want %q", got, want)
	}
}

func TestIndentLines(t *testing.T) {
	if got := yamledit.IndentLines([]byte("a:\n\n  b: 1\n"), 2); got != "  a:\n\n    b: 1\n" {
		t.Errorf("IndentLines = %q", got)
	}
}
