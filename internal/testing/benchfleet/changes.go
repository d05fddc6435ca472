package benchfleet

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// levels lists the directories of each level in walk order: environments,
// then environment/sector, then environment/sector/region.
func levels(envs []env) (envDirs, sectorDirs, regionDirs [][]string) {
	for _, e := range envs {
		envDirs = append(envDirs, []string{e.name})
		for _, s := range e.sectors {
			sectorDirs = append(sectorDirs, []string{e.name, s.name})
			for _, reg := range s.regions {
				regionDirs = append(regionDirs, []string{e.name, s.name, reg})
			}
		}
	}
	return envDirs, sectorDirs, regionDirs
}

// pick chooses k of n indices, returned in ascending (walk) order.
func pick(r *rand.Rand, n, k int) []int {
	p := r.Perm(n)[:k]
	slices.Sort(p)
	return p
}

// overrides writes override.yaml at a share of each level's nodes.
func overrides(c component, envs []env, r *rand.Rand, add func(path string, header []string, body *mapping)) {
	envDirs, sectorDirs, regionDirs := levels(envs)
	last := envs[len(envs)-1].name
	for i, dirs := range [][][]string{envDirs, sectorDirs, regionDirs} {
		f := []float64{envOverrideShare, sectorOverrideShare, regionOverrideShare}[i]
		for _, at := range pick(r, len(dirs), share(len(dirs), f)) {
			dir := dirs[at]
			var vo *mapping
			switch i {
			case 0:
				vo = m("replicaCount", 2+r.IntN(2), "resources", resources(r, 2))
			case 1:
				vo = m("podLabels", m("fleet.example.com/sector", dir[1]),
					"nodeSelector", m("cloud.google.com/gke-nodepool", dir[1]+"-pool"))
			default:
				vo = m("extraArgs", list("--log-level=debug", "--metrics-bind-address=:8080", "--zone="+dir[2]+"-b"))
			}
			item := overlay(c, vo)
			if i == 0 && dir[0] == last && c.path == "" && !c.appSet {
				// production trails the others by one release
				item.entries[0].value.(*mapping).entries = append([]entry{{key: "targetRevision", value: bump(c.version, -1),
					comment: "stable release"}}, item.entries[0].value.(*mapping).entries...)
			}
			level := []string{"environment", "sector", "region"}[i]
			add(componentPath(c, dir, "override.yaml"),
				[]string{fmt.Sprintf("Permanent %s override for %s at %s", level, c.name, strings.Join(dir, "/"))},
				m(sectionOf(c), m(c.name, item)))
		}
	}
}

// overlay nests chart values where the component keeps them.
func overlay(c component, vo *mapping) *mapping {
	switch {
	case c.appSet:
		return m("template", m("spec", m("source", m("helm", m("valuesObject", vo)))))
	case c.path != "":
		// a git path source has no chart values: tune the sync instead
		return m("syncPolicy", m("retry", m("limit", len(vo.entries)+2)),
			"additionalLabels", m("fleet.example.com/tuned", "true"))
	}
	return m("source", m("helm", m("valuesObject", vo)))
}

// patches writes the patch files of a component with a rollout in progress:
// one patch promoted (sector by sector in walk order, coalesced to the
// environment once every sector has it) and/or a newer one just started in
// the first region.
func patches(c component, envs []env, r *rand.Rand, add func(path string, header []string, body *mapping)) {
	first := 1 + r.IntN(4)
	sectors := len(envs[0].sectors)
	total := len(envs) * sectors
	canStart := len(envs[0].sectors[0].regions) > 1
	mode := r.IntN(3) // 0: one patch being promoted, 1: and a newer one starting, 2: only a new one
	switch {
	case total < 2 && !canStart:
		return // a one-target fleet has no rollout to be halfway through
	case total < 2:
		mode = 2
	case !canStart:
		mode = 0
	}
	n := first
	if mode != 2 {
		covered := 1 + r.IntN(total-1)
		a, b := covered/sectors, covered%sectors
		var dirs [][]string
		for i := range a {
			dirs = append(dirs, []string{envs[i].name})
		}
		for j := range b {
			dirs = append(dirs, []string{envs[a].name, envs[a].sectors[j].name})
		}
		body := patch(c, n, r.IntN(4) != 0)
		for _, dir := range dirs {
			add(componentPath(c, dir, patchName(n)), nil, body)
		}
		n++
	}
	if mode != 0 {
		dir := []string{envs[0].name, envs[0].sectors[0].name, envs[0].sectors[0].regions[0]}
		add(componentPath(c, dir, patchName(n)), []string{"Canary: first region of the sequence"}, patch(c, n, true))
	}
}

func patchName(n int) string { return fmt.Sprintf("patch-%03d.yaml", n) }

// patch is a version bump with a values tweak. All copies of one patch have
// the same bytes, as promotion copies files.
func patch(c component, n int, withMetadata bool) *mapping {
	version := bump(c.version, n)
	var item *mapping
	switch {
	case c.appSet:
		item = m("template", m("spec", m("source", m("targetRevision", version))))
	case c.path != "":
		item = m("source", m("targetRevision", version))
	default:
		item = m("source", m("targetRevision", version,
			"helm", m("valuesObject", m("podAnnotations", m("fleet.example.com/rollout", patchName(n)[:9])))))
	}
	body := m(sectionOf(c), m(c.name, item))
	if withMetadata {
		md := m("description", fmt.Sprintf("Upgrade %s to %s", c.name, version),
			"author", "team-"+c.team+"@example.com", "ticket", fmt.Sprintf("FLEET-%d", 1000+n))
		body.entries = append([]entry{{key: "metadata", value: md}}, body.entries...)
		body.entries[1].blank = true
	}
	return body
}

func componentPath(c component, dir []string, file string) string {
	return strings.Join(append(append([]string{"config", ClusterType, c.name}, dir...), file), "/")
}
