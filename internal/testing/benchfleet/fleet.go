package benchfleet

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// File is one file of a generated fleet repository.
type File struct {
	Path string // slash-separated, relative to the repository root
	Data []byte
}

// Files returns the fleet repository s describes, sorted by path.
func Files(s Spec) ([]File, error) {
	if err := s.validate(); err != nil {
		return nil, err
	}
	envs := sequence(s)
	var files []File
	add := func(path string, header []string, body *mapping) {
		files = append(files, File{Path: path, Data: document(header, body)})
	}
	add("config/config.yaml", []string{
		"Fleet dimensional hierarchy: a bench fleet written by hack/genfleet",
		fmt.Sprintf("(%d environments x %d sectors x %d regions, %d components, seed %d).",
			s.Environments, s.Sectors, s.Regions, s.Components, s.Seed),
	}, configYAML(envs))
	add("config/"+ClusterType+"/defaults.yaml",
		[]string{"Defaults for every application and applicationset of the management clusters"}, defaultsYAML())

	top := rand.New(rand.NewPCG(s.Seed, 0))
	patched := pick(top, s.Components, share(s.Components, patchedShare))
	for i := range s.Components {
		c := catalogEntry(i)
		r := rand.New(rand.NewPCG(s.Seed, uint64(i)+1))
		add(componentPath(c, nil, "values.yaml"), []string{"Base configuration for " + c.name}, baseValues(c, r))
		add(componentPath(c, nil, "metadata.yaml"), nil, m("name", c.name, "description", c.description,
			"owners", list("team-"+c.team+"@example.com"), "slack", "#team-"+c.team))
		overrides(c, envs, r, add)
		if slices.Contains(patched, i) {
			patches(c, envs, r, add)
		}
	}
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	for i := 1; i < len(files); i++ {
		if files[i].Path == files[i-1].Path {
			return nil, fmt.Errorf("bench fleet: %s generated twice", files[i].Path)
		}
	}
	return files, nil
}

// Write puts the fleet repository s describes under dir (created if
// needed). It refuses to write over an existing dir/config, so that no stale
// file of another fleet survives.
func Write(dir string, s Spec) error {
	files, err := Files(s)
	if err != nil {
		return err
	}
	if _, err := os.Lstat(filepath.Join(dir, "config")); err == nil {
		return fmt.Errorf("writing bench fleet: %s already exists", filepath.Join(dir, "config"))
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("writing bench fleet: %w", err)
	}
	for _, f := range files {
		path := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("writing bench fleet: %w", err)
		}
		if err := os.WriteFile(path, f.Data, 0o644); err != nil {
			return fmt.Errorf("writing bench fleet: %w", err)
		}
	}
	return nil
}

func configYAML(envs []env) *mapping {
	gate := func(mp *mapping, manual bool) {
		if manual {
			mp.set("promotion", "manual").note("gate: entering needs approval")
		} else {
			mp.set("promotion", "automated")
		}
	}
	var envList []any
	for i, e := range envs {
		em := m("name", e.name)
		if i > 0 {
			gate(em, e.manual)
		}
		var sectors []any
		for _, s := range e.sectors {
			sm := m("name", s.name)
			gate(sm, s.manual)
			var regions []any
			for _, reg := range s.regions {
				regions = append(regions, m("name", reg))
			}
			sectors = append(sectors, sm.set("regions", regions))
		}
		envList = append(envList, em.set("sectors", sectors))
	}
	return m("dimensions", list("environments", "sectors", "regions")).
		set("sequence", m("environments", envList)).note("rollout order; targets are the regions").spaced().
		set("cluster_types", list(m("name", ClusterType))).spaced()
}

func defaultsYAML() *mapping {
	finalizers := func() []any { return list("resources-finalizer.argocd.argoproj.io") }
	automated := m("prune", false).note("never delete resources by accident").set("selfHeal", true)
	destination := m("name", clusterName).note("escaped: Argo CD fills in the cluster")
	apps := m("project", "default", "namespace", "argocd", "finalizers", finalizers(),
		"syncPolicy", m("automated", automated, "syncOptions", list("CreateNamespace=true")),
		"destination", destination, "revisionHistoryLimit", 5)
	appSets := m("project", "default", "namespace", "argocd", "finalizers", finalizers(),
		"syncPolicy", m("preserveResourcesOnDeletion", false))
	return m("applications", m("default", apps)).set("applicationsets", m("default", appSets)).spaced()
}
