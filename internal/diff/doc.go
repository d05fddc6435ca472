// Package diff tells what a change does to the rendered output: it renders
// the fleet as it is at a Git revision and as it is now, in memory, and
// compares them per target and per resource.
//
// The revision's files (config/ and argocd-apps/) are read from Git's object
// store with `git ls-tree` and `git cat-file --batch` into an in-memory
// fs.FS ([ReadRevision]); nothing touches the working tree or the index, so
// it works on a dirty checkout and in CI on a pull request's merge base
// ("origin/main...HEAD"). Both fleets are rendered with package render;
// [Compare] returns, per target that changes, each resource (and values.yaml)
// that is added, removed or changed with a unified diff of its YAML, and a
// summary ("3 of 27 targets change: cert-manager, prometheus"). The result is
// data; the CLI and the web UI print it.
package diff
