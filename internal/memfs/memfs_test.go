package memfs

import (
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

func tree() fstest.MapFS {
	return fstest.MapFS{
		"config/config.yaml":                     {Data: []byte("a")},
		"config/mc/app/values.yaml":              {Data: []byte("b")},
		"config/mc/app/prod/s1/r1/override.yaml": {Data: []byte("c")},
		"config/mc/app/prod/s1/override.yaml":    {Data: []byte("d")},
		"config/mc/link.yaml":                    {Data: []byte("app/values.yaml"), Mode: fs.ModeSymlink | 0o777},
		"config/empty":                           {Mode: fs.ModeDir | 0o755},
		"argocd-apps/Chart.yaml":                 {Data: []byte("e")},
	}
}

// The indexed FS is a correct fs.FS (fstest.TestFS checks ReadDir, Open
// and Stat against each other) and lists what MapFS lists.
func TestIndexListsWhatMapFSLists(t *testing.T) {
	m := tree()
	f := Index(m)
	if err := fstest.TestFS(f, "config/config.yaml", "config/mc/app/prod/s1/r1/override.yaml", "config/empty", "argocd-apps/Chart.yaml"); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{".", "config", "config/mc", "config/mc/app/prod/s1", "config/empty"} {
		want, err := m.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		got, err := f.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(entries(want), entries(got)); diff != "" {
			t.Errorf("ReadDir(%q) (-MapFS +indexed):\n%s", dir, diff)
		}
	}
	for _, bad := range []string{"config/config.yaml", "nope", "../x"} {
		if _, err := f.ReadDir(bad); err == nil {
			t.Errorf("ReadDir(%q): no error", bad)
		}
	}
}

func entries(es []fs.DirEntry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Name()+" "+e.Type().String())
	}
	return out
}
