package promote

import (
	"slices"
	"testing"
)

// TestUnrelated: a step's commit may take the patch's own files, the
// files its operations touch and rendered/; anything else is someone's
// unrelated work.
func TestUnrelated(t *testing.T) {
	dirty := []string{
		"?? config/mc/cm/integration/patch-002.yaml",                        // the patch's first copy, by hand
		" M config/mc/cm/values.yaml",                                       // an op of the plan
		" M rendered/mc/integration/cm/app.yaml",                            // re-rendered
		" M config/mc/cm/integration/override.yaml",                         // someone's
		"?? config/mc/other/stage/patch-002.yaml",                           // another component's patch-002
		"R  config/mc/cm/a/patch-002.yaml -> config/mc/cm/b/patch-002.yaml", // a move by hand
	}
	got := Unrelated("rendered", "mc", "cm", "patch-002", []Op{{Kind: "write", Path: "config/mc/cm/values.yaml"}}, dirty)
	want := dirty[3:]
	if !slices.Equal(got, want) {
		t.Errorf("Unrelated = %q, want %q", got, want)
	}
}
