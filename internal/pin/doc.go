// Package pin moves a revision pin: the `revision` of a sequence node in
// config/config.yaml, which sets the Git revision the clusters under the node
// run (SPEC section 6).
//
// Prepare computes, from the loaded fleet and without touching the disk,
// what `strata pin NODE REVISION [--cluster-type CT]` does: the node's new
// pin (one revision for every cluster type, or one for CT, the others keeping
// what they ran), the targets and inventory clusters whose revision changes,
// the manual gates they sit behind, and the new text of config.yaml. The
// targets are those render makes: each cluster type's where config.yaml's
// at: places it (fleet.ClusterType.Targets); a CT not placed at the node is
// an error. Gate refuses a plan behind a manual gate without approval (as
// for promote); it is separate so that the CLI checks the revision (Resolve)
// before it asks for the approval. The text is edited in place (package yamledit)
// so that comments and layout stay; the result is loaded again and checked to
// differ from the old configuration by the pin alone.
//
// Resolve looks the revision up in the repository's Git clone, as Argo CD
// will look it up in the remote: one the clone cannot resolve is an
// *UnresolvedError (--force pins it unchecked); one the remote may lack comes
// with warnings that say what only the remote can tell. CheckTree then
// reads the resolved commit's tree: a revision without the changed
// targets' output directories, or without a path that one of their
// sources following the pin names, cannot serve them and is a *TreeError
// naming the way forward (tree.go).
//
// The plan is data; package cli prints it. Apply writes config.yaml
// atomically.
package pin
