package verify

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"testing/fstest"

	"github.com/strata-fleet/strata/internal/diff"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/memfs"
	"github.com/strata-fleet/strata/internal/render"
)

// outside finds the changed targets behind a manual gate that the change
// reaches through files other than patches. It renders the fleet after the
// change with the base's patches (mixed): a target that differs there from
// the base is reached by the other files.
func (c *checker) outside(full *diff.Result) error {
	gated := map[string]*fleet.Node{}
	for _, tc := range full.Changes {
		_, id, _ := strings.Cut(tc.ID, "/")
		if n := c.head.Config.Find(strings.Split(id, "/")); n != nil && len(gates(n)) > 0 {
			gated[tc.ID] = n
		} else if n := c.base.Config.Find(strings.Split(id, "/")); n != nil && len(gates(n)) > 0 {
			gated[tc.ID] = n
		}
	}
	if len(gated) == 0 {
		return nil
	}
	headFiles, err := readTree(c.opts.Head)
	if err != nil {
		return err
	}
	reached, why := c.reachedOutside(headFiles, gated)
	baseFiles := c.opts.Base.FS
	for _, tc := range full.Changes { // in rollout order
		id := tc.ID
		if !reached[id] {
			continue
		}
		n := gated[id]
		gs := c.unapproved(gates(n), nil)
		if len(gs) == 0 {
			continue
		}
		ct, _, _ := strings.Cut(id, "/")
		files := changedInputs(baseFiles, headFiles, ct, n)
		f := Finding{Target: c.name(ct, n.ID()), Rule: RuleOutside}
		what := "a change to files other than patches"
		if len(files) > 0 {
			f.File, f.Line = files[0].path, files[0].line
			var names []string
			for _, cf := range files {
				names = append(names, cf.path)
			}
			what = "the change to " + strings.Join(names, ", ")
		}
		f.Revisions = c.revisionMoves(ct, n)
		if len(f.Revisions) > 0 {
			var moves []string
			for _, m := range f.Revisions {
				moves = append(moves, fmt.Sprintf("revision %s from %s to %s", m.Name, m.From, m.To))
			}
			what += " (it moves " + strings.Join(moves, ", ") + ")"
		}
		f.Message = fmt.Sprintf("%s reaches this target behind the manual gate %s outside a patch, with no approval recorded in the change (roll it out as a patch with strata promote, or approve it with a commit trailer \"Approved-by: Name <email> for %s\")%s",
			what, strings.Join(gs, ", "), gs[0], why)
		c.add(f)
	}
	return nil
}

// revisionMoves lists the revisions the change moves for the target of
// cluster type ct at n (a node of either fleet): the root's, then the named
// ones of either fleet's revisions: in config.yaml's order.
func (c *checker) revisionMoves(ct string, n *fleet.Node) []RevisionMove {
	path := n.Path()
	bn, hn := c.base.Config.Find(path), c.head.Config.Find(path)
	if bn == nil || hn == nil {
		return nil // a target the change adds or removes: no revision moves
	}
	var out []RevisionMove
	if from, to := c.base.Revision(ct, bn), c.head.Revision(ct, hn); from != to {
		out = append(out, RevisionMove{Name: fleet.RootRevisionName, From: orHead(from), To: orHead(to)})
	}
	var names []string
	for _, cfg := range []*fleet.Config{c.head.Config, c.base.Config} {
		for _, r := range cfg.Revisions {
			if !slices.Contains(names, r.Name) {
				names = append(names, r.Name)
			}
		}
	}
	for _, name := range names {
		from, _ := c.base.RevisionOf(ct, bn, name)
		to, _ := c.head.RevisionOf(ct, hn, name)
		if from != to {
			out = append(out, RevisionMove{Name: name, From: orNone(from), To: orNone(to)})
		}
	}
	return out
}

// orHead is a root's revision as Argo CD reads it: HEAD where none is set.
func orHead(rev string) string {
	if rev == "" {
		return "HEAD"
	}
	return rev
}

// orNone is a named revision, "(none)" where a fleet does not name it.
func orNone(rev string) string {
	if rev == "" {
		return "(none)"
	}
	return rev
}

// reachedOutside returns the gated targets whose output differs between
// the base and the fleet after the change with the base's patches. When
// that fleet cannot be rendered (the change moved what the base's patches
// need), every gated target counts, and why says so.
func (c *checker) reachedOutside(headFiles fstest.MapFS, gated map[string]*fleet.Node) (map[string]bool, string) {
	mixed := fstest.MapFS{}
	for p, f := range headFiles {
		if !isPatch(p) {
			mixed[p] = f
		}
	}
	err := fs.WalkDir(c.opts.Base.FS, "config", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !isPatch(p) {
			return err
		}
		data, err := fs.ReadFile(c.opts.Base.FS, p)
		mixed[p] = &fstest.MapFile{Data: data, Mode: 0o644}
		return err
	})
	// A patch folded into values.yaml is the patches' part of the change:
	// the mixed fleet keeps the base's values.yaml and the patch.
	for k := range c.integrated {
		if f := c.values(c.base, patchKey{ct: k.ct, comp: k.comp}); f != nil {
			mixed[f.Path] = &fstest.MapFile{Data: f.Data, Mode: 0o644}
		}
	}
	var res *diff.Result
	if err == nil {
		res, err = diff.Compare(diff.Options{Base: c.opts.Base, Head: memfs.Index(mixed)})
	}
	out := map[string]bool{}
	if err != nil {
		for id := range gated {
			out[id] = true
		}
		return out, fmt.Sprintf(" (the change to patches and to the other files could not be told apart: %v)", firstLine(err.Error()))
	}
	for _, tc := range res.Changes {
		if gated[tc.ID] != nil {
			out[tc.ID] = true
		}
	}
	return out, ""
}

func isPatch(p string) bool {
	base := p[strings.LastIndexByte(p, '/')+1:]
	return strings.HasPrefix(p, "config/") && strings.HasPrefix(base, "patch-") && strings.HasSuffix(base, ".yaml")
}

// readTree reads the files render reads (config/ and the templates chart)
// into memory.
func readTree(fsys fs.FS) (fstest.MapFS, error) {
	out := fstest.MapFS{}
	for _, dir := range []string{"config", render.ChartDir} {
		err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := fs.ReadFile(fsys, p)
			out[p] = &fstest.MapFile{Data: data, Mode: 0o644}
			return err
		})
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	// The Chart.yaml of each chart config.yaml's charts: finds: what
	// makes the components of those directories.
	if cfg, err := fleet.ReadConfig(out, nil); err == nil {
		for _, p := range cfg.ChartFiles(fsys) {
			data, err := fs.ReadFile(fsys, p)
			if err != nil {
				return nil, err
			}
			out[p] = &fstest.MapFile{Data: data, Mode: 0o644}
		}
	}
	return out, nil
}

// changedFile is an input that differs between base and head, and the
// first line where it does.
type changedFile struct {
	path string
	line int
}

// changedInputs lists the files other than patches that apply to the
// target under n of cluster type ct and that the change changes:
// config.yaml, the templates chart, defaults.yaml, each component's
// values.yaml and the overrides on the target's path.
func changedInputs(base fs.FS, head fstest.MapFS, ct string, n *fleet.Node) []changedFile {
	applies := func(p string) bool {
		switch {
		case p == fleet.ConfigPath, strings.HasPrefix(p, render.ChartDir+"/"), p == "config/"+ct+"/defaults.yaml":
			return true
		case !strings.HasPrefix(p, "config/"+ct+"/"):
			return false
		}
		rest := strings.SplitN(strings.TrimPrefix(p, "config/"+ct+"/"), "/", 2)
		if len(rest) < 2 {
			return false
		}
		if rest[1] == "values.yaml" {
			return true
		}
		level, file, ok := cutLast(rest[1])
		return ok && file == "override.yaml" && (n.ID() == level || strings.HasPrefix(n.ID(), level+"/"))
	}
	seen := map[string]bool{}
	var out []changedFile
	check := func(p string) {
		if seen[p] || !applies(p) {
			return
		}
		seen[p] = true
		old, _ := fs.ReadFile(base, p)
		var now []byte
		if f := head[p]; f != nil {
			now = f.Data
		}
		if !bytes.Equal(old, now) {
			out = append(out, changedFile{path: p, line: firstDiffLine(old, now)})
		}
	}
	for p := range head {
		check(p)
	}
	_ = fs.WalkDir(base, "config", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			check(p)
		}
		return nil
	})
	_ = fs.WalkDir(base, render.ChartDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			check(p)
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

func cutLast(p string) (dir, file string, ok bool) {
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return "", "", false
	}
	return p[:i], p[i+1:], true
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
