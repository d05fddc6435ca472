// Package bootstrap builds and applies what a new cluster of the inventory
// needs before Argo CD takes over (SPEC section 6; seeds 000, 001, 002, 004).
//
// Data comes from the loaded fleet (config.yaml's repository and pins, the
// cluster inventory config/clusters/) and from the target's rendered output,
// rendered in memory with package render. [Build] returns a [Bundle]: the
// Kubernetes objects as unstructured data, and the cluster they go to.
//
// Two models:
//
//   - Distributed (a cluster without hub runs its own Argo CD, seeds 000 and
//     004). On the cluster itself: the namespace of Argo CD; the cluster
//     identity Secret (an Argo CD cluster secret for the in-cluster server,
//     labelled with the secret type, the cluster type and the node of every
//     dimension, plus the cluster's labels; annotated with the Git
//     repository, the branch the root follows and the cluster name); the
//     root, an ApplicationSet whose git files generator reads the target's
//     rendered values.yaml at the branch and makes the Application root,
//     which renders rendered/<type>/<target>/ at the revision pinned there
//     (cluster.revision) with Helm, handing it the cluster values
//     (cluster.name, the dimensions, the revision) that Argo CD's render
//     resolves; and Argo CD's
//     self-management Application: the target's own Application named
//     argocd, resolved with those values, so that the hand-off to Argo CD is
//     seamless. A cluster that is a hub also gets the root ApplicationSet of
//     each cluster type of its spokes.
//   - Central (a cluster with hub, seeds 001 and 002). On the hub: the
//     spoke's cluster Secret, with the spoke's server and the credentials
//     given at bootstrap time (a kubeconfig context or a token file; never
//     written to Git), or instead an ExternalSecret that makes it from a
//     secret store; and the hub's root ApplicationSet for the spoke's cluster
//     type: seed 000's cluster x git matrix. It selects the hub's cluster
//     secrets by the cluster_type label, reads each spoke's rendered
//     values.yaml at the branch its secret names, and makes an Application
//     that renders the spoke's rendered/ directory at the revision pinned
//     there (no Application for a spoke not rendered yet).
//
// Projects: each root object is in its cluster's Argo CD project
// (fleet.Cluster.Project; default unless the inventory or the cluster type
// names one). A hub's root ApplicationSet reads each spoke's project from
// the spoke's cluster secret (the strata.io/project annotation), so one
// ApplicationSet serves spokes of several projects. A project other than
// default is defined by the fleet (an item of appprojects) for the Argo CD
// that holds the root, and is applied with the bundle, before the root
// objects that name it: see projects.go.
//
// Pins take effect through Git: no root object names a pin, so strata pin
// and a commit of config/ and rendered/ to the branch move the clusters;
// bootstrap is needed again only when the root objects themselves change.
//
// Where a bundle is applied is named, never assumed: [ReadKubeconfig] reads
// the user's kubeconfig (no fallback to in-cluster or localhost), and
// [Kubeconfig.Target] chooses the context of the cluster the objects go to
// (--context, else the inventory's context:, else a context named as the
// cluster; the current context only when so named) and refuses one that
// reaches another cluster's server: of the inventory, servers compared as
// servers (kube.Servers.Same: normalised URLs, or hosts that resolve to a
// common address on one scheme, port and path). Every client here is built
// on kube.Secure (no redirect to another server, where the token and the
// spoke Secret would go). [NewPlan] says what
// goes where, for the CLI to show before it writes.
//
// [Manifest] writes a bundle as YAML for kubectl apply -f -. [Applier]
// applies it server-side through client-go and reports, per object, created,
// configured or unchanged; [InstallArgoCD] installs Argo CD with the Helm
// library first. Nothing here prints: package cli does.
package bootstrap
