package fleet

import (
	"testing"
	"testing/fstest"
)

// TestConfigParsedOncePerContent loads a fleet twice, then after
// config.yaml changed: the same bytes give the same Config, other bytes a
// new one with their content.
func TestConfigParsedOncePerContent(t *testing.T) {
	config := func(region string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("dimensions: [environments, regions]\n" +
			"sequence:\n  environments:\n  - name: dev\n    regions: [{name: " + region + "}]\n" +
			"cluster_types: [{name: mc}]\n")}
	}
	fsys := fstest.MapFS{"config/config.yaml": config("r1"), "config/mc/defaults.yaml": {Data: []byte("{}\n")}}
	load := func() *Fleet {
		t.Helper()
		f, err := Load(fsys)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	first, second := load(), load()
	if first.Config != second.Config {
		t.Error("config.yaml was parsed again though its bytes had not changed")
	}
	fsys["config/config.yaml"] = config("r2")
	third := load()
	if third.Config == first.Config {
		t.Fatal("a changed config.yaml was not parsed again")
	}
	if got := third.Targets[0].ID(); got != "dev/r2" {
		t.Errorf("after the change the target is %s, want dev/r2", got)
	}
}
