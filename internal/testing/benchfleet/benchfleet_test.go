package benchfleet

import (
	"bytes"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

var tiny = Spec{Environments: 2, Sectors: 2, Regions: 2, Components: 3}

func mustFiles(t *testing.T, s Spec) []File {
	t.Helper()
	files, err := Files(s)
	if err != nil {
		t.Fatalf("Files(%+v): %v", s, err)
	}
	return files
}

func TestFilesAreDeterministic(t *testing.T) {
	a, b := mustFiles(t, DefaultSpec()), mustFiles(t, DefaultSpec())
	if len(a) != len(b) {
		t.Fatalf("two runs wrote %d and %d files", len(a), len(b))
	}
	for i := range a {
		if a[i].Path != b[i].Path || !bytes.Equal(a[i].Data, b[i].Data) {
			t.Fatalf("two runs differ at %s", a[i].Path)
		}
	}
	other := tiny
	other.Seed = 2
	if cmp.Equal(mustFiles(t, tiny), mustFiles(t, other)) {
		t.Errorf("seeds 0 and 2 wrote the same fleet")
	}
}

// sequenceDoc is the part of config.yaml the tests check files against.
type sequenceDoc struct {
	Dimensions []string `yaml:"dimensions"`
	Sequence   struct {
		Environments []struct {
			Name    string `yaml:"name"`
			Sectors []struct {
				Name    string `yaml:"name"`
				Regions []struct {
					Name string `yaml:"name"`
				} `yaml:"regions"`
			} `yaml:"sectors"`
		} `yaml:"environments"`
	} `yaml:"sequence"`
	ClusterTypes []struct {
		Name string `yaml:"name"`
	} `yaml:"cluster_types"`
}

// fleetShape counts what a generated fleet holds, failing on any file that
// does not parse or sits in a directory that names no node of the sequence.
type fleetShape struct {
	targets, valuesFiles, metadataFiles, appSets int
	overrides                                    [3]int // per level
	patchedComponents                            map[string]bool
}

func shapeOf(t *testing.T, files []File) fleetShape {
	t.Helper()
	var cfg sequenceDoc
	nodes := map[string]bool{}
	byPath := map[string][]byte{}
	for _, f := range files {
		byPath[f.Path] = f.Data
		var doc yaml.Node // yaml.v3 also rejects duplicate keys
		if err := yaml.Unmarshal(f.Data, &doc); err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
	}
	if err := yaml.Unmarshal(byPath["config/config.yaml"], &cfg); err != nil {
		t.Fatalf("config.yaml: %v", err)
	}
	if diff := cmp.Diff([]string{"environments", "sectors", "regions"}, cfg.Dimensions); diff != "" {
		t.Errorf("dimensions (-want +got):\n%s", diff)
	}
	if len(cfg.ClusterTypes) != 1 || cfg.ClusterTypes[0].Name != ClusterType {
		t.Errorf("cluster_types = %+v, want one %s", cfg.ClusterTypes, ClusterType)
	}
	sh := fleetShape{patchedComponents: map[string]bool{}}
	for _, e := range cfg.Sequence.Environments {
		nodes[e.Name] = true
		for _, s := range e.Sectors {
			nodes[e.Name+"/"+s.Name] = true
			for _, r := range s.Regions {
				nodes[e.Name+"/"+s.Name+"/"+r.Name] = true
				sh.targets++
			}
		}
	}
	if _, ok := byPath["config/"+ClusterType+"/defaults.yaml"]; !ok {
		t.Errorf("no defaults.yaml")
	}
	for _, f := range files {
		parts := strings.Split(f.Path, "/")
		if len(parts) < 4 {
			continue
		}
		comp, dir, name := parts[2], strings.Join(parts[3:len(parts)-1], "/"), path.Base(f.Path)
		switch {
		case dir == "" && name == "values.yaml":
			sh.valuesFiles++
			if bytes.Contains(f.Data, []byte("\napplicationsets:")) {
				sh.appSets++
			}
		case dir == "" && name == "metadata.yaml":
			sh.metadataFiles++
		case !nodes[dir]:
			t.Errorf("%s: directory %s names no node of the sequence", f.Path, dir)
		case name == "override.yaml":
			sh.overrides[len(parts)-5]++
		case strings.HasPrefix(name, "patch-"):
			sh.patchedComponents[comp] = true
		default:
			t.Errorf("%s: unexpected file", f.Path)
		}
	}
	return sh
}

func TestTinyFleetExercisesEveryLevel(t *testing.T) {
	sh := shapeOf(t, mustFiles(t, tiny))
	if sh.targets != 8 || sh.valuesFiles != 3 || sh.metadataFiles != 3 {
		t.Errorf("got %d targets, %d values.yaml, %d metadata.yaml; want 8, 3, 3", sh.targets, sh.valuesFiles, sh.metadataFiles)
	}
	for level, n := range sh.overrides {
		if n == 0 {
			t.Errorf("no override.yaml at level %d", level)
		}
	}
	if len(sh.patchedComponents) != 1 || sh.appSets != 1 {
		t.Errorf("got %d patched components and %d applicationsets, want 1 and 1", len(sh.patchedComponents), sh.appSets)
	}
}

func TestDefaultSpecIsTheBenchFleet(t *testing.T) {
	s := DefaultSpec()
	sh := shapeOf(t, mustFiles(t, s))
	got := []int{sh.targets, sh.valuesFiles, sh.appSets, sh.overrides[0], sh.overrides[1], sh.overrides[2],
		len(sh.patchedComponents), s.RenderedFiles()}
	// 20 components: overrides at 2 of 4 environments, 8 of 40 sectors and
	// 50 of 1,000 regions each; patches in 7 of them; 22 files per target.
	want := []int{1000, 20, 2, 40, 160, 1000, 7, 22000}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("targets, components, appsets, overrides per level, patched, rendered files (-want +got):\n%s", diff)
	}
}

func TestCopiesOfAPatchAreIdentical(t *testing.T) {
	seen := map[string][]byte{} // component/patch name -> content
	for _, f := range mustFiles(t, DefaultSpec()) {
		parts := strings.Split(f.Path, "/")
		name := parts[len(parts)-1]
		if !strings.HasPrefix(name, "patch-") {
			continue
		}
		key := parts[2] + "/" + name
		if prev, ok := seen[key]; ok && !bytes.Equal(prev, f.Data) {
			t.Errorf("%s differs from an earlier copy", f.Path)
		}
		seen[key] = f.Data
	}
}

func TestWriteMatchesFilesAndRefusesToOverwrite(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, tiny); err != nil {
		t.Fatal(err)
	}
	for _, f := range mustFiles(t, tiny) {
		got, err := os.ReadFile(filepath.Join(dir, f.Path))
		if err != nil || !bytes.Equal(got, f.Data) {
			t.Errorf("%s on disk differs from Files (err %v)", f.Path, err)
		}
	}
	if err := Write(dir, tiny); err == nil {
		t.Errorf("second Write into the same directory succeeded, want an error")
	}
}

func TestSpecWithAnEmptyDimensionIsRejected(t *testing.T) {
	if _, err := Files(Spec{Environments: 1, Sectors: 0, Regions: 1, Components: 1}); err == nil {
		t.Errorf("Files accepted zero sectors")
	}
}

func TestQuoteKeepsStringsStrings(t *testing.T) {
	for in, want := range map[string]string{
		"cert-manager":                 "cert-manager",
		"https://charts.jetstack.io":   "https://charts.jetstack.io",
		"CreateNamespace=true":         "CreateNamespace=true",
		"yes":                          `"yes"`,
		"Off":                          `"Off"`,
		"true":                         `"true"`,
		"77.9.1":                       `"77.9.1"`,
		"30s":                          `"30s"`,
		"--zone=us-east1-b":            `"--zone=us-east1-b"`,
		"#team":                        `"#team"`,
		"a: b":                         `"a: b"`,
		"{{ .Values.cluster.region }}": `"{{ .Values.cluster.region }}"`,
		`{{ default "x" .Values.a }}`:  `'{{ default "x" .Values.a }}'`,
		"line\nbreak":                  `"line\nbreak"`,
		"":                             `""`,
	} {
		if got := quote(in); got != want {
			t.Errorf("quote(%q) = %s, want %s", in, got, want)
		}
		var back map[string]any
		if err := yaml.Unmarshal([]byte("k: "+quote(in)), &back); err != nil || back["k"] != any(in) {
			t.Errorf("quote(%q) reads back as %#v (err %v)", in, back["k"], err)
		}
	}
}
