// Package live reads what Argo CD says of a fleet and joins it to the
// rollout matrix: per target x component, whether the clusters run what the
// repository renders (SPEC section 5a, issue 12).
//
// Where it reads: every cluster of the inventory without hub runs an Argo
// CD ([ArgoCDs]): its own Applications live there (distributed model), and
// so do those of every cluster whose hub it is (central model). Read lists,
// per Argo CD, the Applications and the ApplicationSets of its namespace,
// one paginated list each, never a GET per object: through a [Client], as
// JSON decoded straight into what strata reads of each object (the whole
// spec only for diff --live, Options.Specs), else through any dynamic
// client's maps, to the same result; unreachable Argo CDs are reported with
// the reason and the others read all the same. How to reach a cluster is
// the caller's [Connect]: the CLI's is [Kubeconfig.Connect], which takes a
// context of the user's kubeconfig (--cluster-context NAME=CONTEXT, the inventory's context:, a
// context named like the cluster, or for a single Argo CD --context or the
// current one); nothing is read from credentials in Git. Tests hand in
// clients of real API servers (package testenv).
//
// How a live object maps to its cell ([Expect], then [Join]; the owners of
// the rendered objects, which with a repository's own chart cost a render
// per component, are remembered in the local state by the target's render
// fingerprint):
//
//   - The cluster: strata's bootstrap gives every cluster a root
//     Application on the Argo CD that holds its Applications ("root" on a
//     cluster that runs its own Argo CD, "<cluster>-root", made by the hub's
//     root ApplicationSet, in the central model). It renders
//     rendered/<type>/<target>/ with Helm values that name the cluster
//     (helm.valuesObject.cluster.name). The root of cluster c is the
//     Application of c's Argo CD whose source path is c's directory and
//     whose values name c (or, without such values, that is named as
//     bootstrap names c's root).
//   - The objects: each Application and ApplicationSet that c's rendered
//     directory holds (templates/<name>.yaml) is expected on c's Argo CD
//     under its rendered name, with the Helm templates still in it resolved
//     as Argo CD's render of the root resolves them (cluster.name, one key
//     per dimension, cluster.revision). So the built-in chart's
//     Applications keep their item's name (seed 003: cert-manager on each
//     management cluster's own Argo CD), and a repository chart's names are
//     whatever it renders (seed 001: <cluster>-<component> side by side on
//     the hub; the e2e fleet: <sector>-<region>-<item>).
//   - The component: the one whose values make the object
//     ([render.Renderer.Owners]): for the built-in chart the component that
//     defines the item; for a repository chart the one whose values alone
//     make the object when the chart is rendered with each component's
//     values alone. Objects the chart makes from no single component fall
//     in the cell of component "".
//   - Applications made by a rendered ApplicationSet (their owner
//     reference) belong to the ApplicationSet's cell.
//
// Live objects that nothing accounts for are reported as unmapped (but for
// bootstrap's own root ApplicationSets), and expected objects with no live
// counterpart as missing.
//
// The state of an object ([State]) compares three things: the commit that
// last changed its rendered file ([History]: one git log of rendered/ for
// the whole tree, the files differing from HEAD, and ancestry with git
// merge-base --is-ancestor per pair of commit and revision, or one git
// rev-list of a revision asked about many commits); the revision the
// cluster's root last deployed (synced to, else its last history entry),
// which must contain that commit; and the object's own status: sync,
// health, its last operation and whether Argo CD's last comparison was of
// its current spec (status.sync.comparedTo), so that a status computed for
// the previous spec is not taken for the new one. A cell has the worst
// state of its objects over the clusters that run it. Whether an object is
// done and healthy is decided in one place (verdict.go, docs/verdicts.md):
// its last operation must have succeeded, hooks included, whatever sync
// and health say.
//
// [Compare] is diff --live: each rendered object, its templates rendered
// as Argo CD renders the cluster's root (with the live root's
// helm.valuesObject), against the live one, on what strata renders (the
// name, the labels, annotations and finalizers it renders, the spec; empty
// values dropped as the API server drops them), with the resources Argo CD
// reports out of sync or unhealthy.
//
// [Watch] streams changes to an Argo CD's Applications from the resource
// version a Read saw, for commands that wait (strata rollout); one Watch
// lasts [WatchSpan]. Nothing here prints; package cli and package web show
// the [Report].
//
// Reaching the API servers: [ClientFor] builds on kube.Secure (no redirect
// off the server; an error in the server's own words, a Status decoded
// even from a raw list). Read and Watch end by their context's deadline,
// the caller's (--live-timeout, a rollout step's --timeout), whatever the
// server does; a list whose continue token comes back unchanged ends at
// once. An Argo CD that could not be read has its Error, scrubbed of
// credentials (kube.Scrub), and a [Reason] without the cluster's own
// names, by which [GroupUnreached] lists the Argo CDs that fail alike.
package live
