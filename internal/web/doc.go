// Package web is strata's read-only web UI: the rollout matrix, each patch's
// rollout along the sequence, a target's detail (merged values with the file
// and line of every leaf, the files that apply, the rendered resources) and
// the diff of the rendered output against a base revision.
//
// The data are those of the other packages: status for the matrix and the
// patches, explain for provenance, render for the manifests, diff for the
// comparison; the rollouts in flight (status.ReadRollouts) are read at each
// request of the matrix page and /api/status, and so are the patches
// folded into values.yaml (status.ReadAllFolded): the matrix and the API
// list them, and a folded patch's page says when and by which commit
// (status.ReadFolded), as status --patch says it. A patch committed
// without strata render waits for it, as status says, from the render's
// check (Options.Unrendered), whose answers are kept while the fleet,
// HEAD and the render state do not change (unrendered.go). A [Server] loads the fleet from an fs.FS, looks for changes
// under config/ and argocd-apps/ and reloads when they change; open pages
// notice the new generation and refresh themselves. A look stats the
// directories and files it saw last (their stamps, package treestamp)
// without listing a directory, on Linux, and lists the trees again only
// when a stamp moved or was racy against the kernel's clock, read after
// the last look (sources.go).
// Templates, styles and scripts are embedded in the binary and nothing is
// fetched from elsewhere. Only GET and HEAD are served, and only requests
// whose Host names a loopback host or one of Options.AllowedHosts, on any
// address it listens on (a guard against DNS rebinding: a page of another
// site that resolves its own name to this server is refused).
package web
