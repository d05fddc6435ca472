package pin

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/strata-fleet/strata/internal/fleet"
	gitpkg "github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/render"
)

// A pin moves what a cluster's root object deploys: the target's rendered
// directory at the pinned revision (bootstrap: the root reads it there),
// and, through cluster.revision, every source of this repository whose
// targetRevision follows it. A revision whose tree holds neither cannot
// serve the target; CheckTree refuses it before config.yaml changes.

// TreeError is a pinned revision whose tree cannot serve some targets.
type TreeError struct {
	Revision, Commit string
	// Missing are the targets' output directories absent at the revision;
	// Paths the sources' paths absent there (file: path).
	Missing []string
	Paths   []string
}

func (e *TreeError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "revision %s (commit %s) cannot serve the targets it would pin", e.Revision, short(e.Commit))
	if len(e.Missing) > 0 {
		fmt.Fprintf(&b, ": it has no %s%s, which their root objects deploy at the pin", list(e.Missing), more(len(e.Missing)))
	}
	if len(e.Paths) > 0 {
		sep := ": "
		if len(e.Missing) > 0 {
			sep = "; "
		}
		fmt.Fprintf(&b, "%sthe sources that follow the pin name paths it lacks: %s%s", sep, list(e.Paths), more(len(e.Paths)))
	}
	if len(e.Missing) > 0 {
		fmt.Fprintf(&b, ". To move these clusters onto it, render and commit their output, then pin a commit that has it (git log -1 --format=%%H -- %s)", e.Missing[0])
	} else {
		_, p, _ := strings.Cut(e.Paths[0], ": ")
		fmt.Fprintf(&b, ". Pin a commit that has the charts too (git log -1 --format=%%H -- %s)", p)
	}
	b.WriteString("; until then leave their pin as it is (pin the other nodes, or --cluster-type)")
	return b.String()
}

const shownMissing = 3

func list(s []string) string {
	if len(s) > shownMissing {
		s = s[:shownMissing]
	}
	return strings.Join(s, ", ")
}

func more(n int) string {
	if n > shownMissing {
		return fmt.Sprintf(" and %d more", n-shownMissing)
	}
	return ""
}

// CheckTree checks that commit, the revision p pins, holds what each
// changed target needs there: its output directory and its values file
// (layout.values), and the path of each
// source of this repository (repository.url) that follows the pin
// (targetRevision from .Values.cluster.revision). dir is the fleet
// repository in its Git clone.
func CheckTree(dir, commit string, f *fleet.Fleet, p *Plan) error {
	if commit == "" || len(p.Changes) == 0 {
		return nil
	}
	if p.Name != "" {
		return checkNamedTree(dir, commit, f, p)
	}
	var outputs []string // each target's directory, then its values file if any
	dirs := map[string]bool{}
	for _, c := range p.Changes {
		ct := f.ClusterType(c.ClusterType)
		n := f.Config.Find(strings.Split(c.Target, "/"))
		if ct == nil || n == nil {
			continue
		}
		dirs[render.Target{ClusterType: ct, Node: n}.Dir()] = true
		outputs = append(outputs, ct.Layout.Paths(ct.Name, n)...)
	}
	have, err := present(dir, commit, outputs)
	if err != nil {
		return err
	}
	e := &TreeError{Revision: p.Revision, Commit: commit}
	var at []string
	for _, d := range outputs {
		switch {
		case !have[d]:
			e.Missing = append(e.Missing, d)
		case dirs[d]:
			at = append(at, d)
		}
	}
	// Plain manifests (layout.manifests) have no source that follows the
	// pin at Argo CD's render: their revisions are written in.
	if f.Config.Repository != nil && len(at) > 0 && !f.Config.Layout.Plain() {
		if e.Paths, err = missingPaths(dir, commit, f.Config.Repository.URL, at); err != nil {
			return err
		}
	}
	if len(e.Missing) > 0 || len(e.Paths) > 0 {
		return e
	}
	return nil
}

// checkNamedTree checks that commit has the paths of this repository's
// sources that follow the named revision p moves; the root's tree does not
// move.
func checkNamedTree(dir, commit string, f *fleet.Fleet, p *Plan) error {
	if f.Config.Repository == nil {
		return nil
	}
	paths, where := namedPaths(f, p)
	have, err := present(dir, commit, paths)
	if err != nil {
		return err
	}
	e := &TreeError{Revision: p.Revision, Commit: commit}
	for _, path := range paths {
		if !have[path] {
			e.Paths = append(e.Paths, where[path]+": "+path)
		}
	}
	if len(e.Paths) > 0 {
		return e
	}
	return nil
}

// present returns which of paths exist in commit's tree.
func present(dir, commit string, paths []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(paths) == 0 {
		return out, nil
	}
	listed, err := git(dir, append([]string{"ls-tree", "-z", "--name-only", commit, "--"}, paths...)...)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", short(commit), err)
	}
	for _, p := range strings.Split(listed, "\x00") {
		if p != "" {
			out[p] = true
		}
	}
	return out, nil
}

// missingPaths reads the templates of dirs at commit and returns, as
// "file: path", each source path of repository url that follows the pin and
// that commit lacks.
func missingPaths(dir, commit, url string, dirs []string) ([]string, error) {
	var files []string
	for _, d := range dirs {
		listed, err := git(dir, "ls-tree", "-z", "--name-only", commit, "--", d+"/templates/")
		if err != nil {
			return nil, fmt.Errorf("listing %s at %s: %w", d, short(commit), err)
		}
		for _, p := range strings.Split(listed, "\x00") {
			if strings.HasSuffix(p, ".yaml") {
				files = append(files, p)
			}
		}
	}
	if len(files) == 0 {
		return nil, nil
	}
	var in bytes.Buffer
	for _, p := range files {
		fmt.Fprintf(&in, "%s:%s\n", commit, p)
	}
	blobs, err := gitBatch(dir, &in, len(files))
	if err != nil {
		return nil, err
	}
	want := map[string][]string{} // path -> files that need it
	for i, data := range blobs {
		for _, p := range followingPaths(data, url) {
			want[p] = append(want[p], files[i])
		}
	}
	var paths []string
	for p := range want {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	have, err := present(dir, commit, paths)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range paths {
		if !have[p] {
			out = append(out, want[p][0]+": "+p)
		}
	}
	return out, nil
}

// followingPaths returns the paths of the sources of a rendered resource
// that point into repository url and follow the pin.
func followingPaths(data []byte, url string) []string {
	var obj struct {
		Spec struct {
			Source  *source  `json:"source"`
			Sources []source `json:"sources"`
		} `json:"spec"`
	}
	if yaml.Unmarshal(data, &obj) != nil {
		return nil
	}
	srcs := obj.Spec.Sources
	if obj.Spec.Source != nil {
		srcs = append(srcs, *obj.Spec.Source)
	}
	var out []string
	for _, s := range srcs {
		if s.Path == "" || strings.Contains(s.Path, "{{") || !sameRepo(s.RepoURL, url) || !strings.Contains(s.TargetRevision, ".Values.cluster.revision") {
			continue
		}
		out = append(out, path.Clean(s.Path))
	}
	return out
}

type source struct {
	RepoURL        string `json:"repoURL"`
	Path           string `json:"path"`
	TargetRevision string `json:"targetRevision"`
}

// sameRepo compares repository URLs as written, but a trailing slash or
// .git.
func sameRepo(a, b string) bool {
	norm := func(s string) string {
		return strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(s), "/"), ".git")
	}
	return norm(a) == norm(b)
}

// gitBatch reads the n objects named on in with git cat-file --batch, in
// order; a missing one is nil.
func gitBatch(dir string, in *bytes.Buffer, n int) ([][]byte, error) {
	out, err := gitpkg.Output(dir, in, "cat-file", "--batch")
	if err != nil {
		return nil, fmt.Errorf("reading rendered files: %w", err)
	}
	rest := []byte(out)
	blobs := make([][]byte, 0, n)
	for range n {
		head, body, ok := bytes.Cut(rest, []byte("\n"))
		if !ok {
			return nil, fmt.Errorf("reading rendered files: git cat-file --batch ended early")
		}
		fields := strings.Fields(string(head))
		if len(fields) == 2 && fields[1] == "missing" {
			blobs, rest = append(blobs, nil), body
			continue
		}
		if len(fields) != 3 {
			return nil, fmt.Errorf("reading rendered files: git cat-file --batch wrote %q", head)
		}
		size, err := strconv.Atoi(fields[2])
		if err != nil || size+1 > len(body) {
			return nil, fmt.Errorf("reading rendered files: git cat-file --batch wrote %q", head)
		}
		blobs, rest = append(blobs, body[:size]), body[size+1:]
	}
	return blobs, nil
}
