// Package bootstrap builds and applies what a new cluster of the inventory
// needs before Argo CD takes over (SPEC section 6; seeds 000, 001, 002, 004).
//
// [Build] returns a [Bundle] from the loaded fleet and the target's
// rendered output: the Kubernetes objects as unstructured data, and the
// cluster they go to. In the distributed model (a cluster without hub) they
// go to the cluster itself: Argo CD's namespace, the cluster identity
// Secret, the root ApplicationSet and Argo CD's self-management Application
// (objects.go, selfapp.go); in the central model (a cluster with hub) to
// the hub: the spoke's cluster Secret or ExternalSecret (secret.go,
// credentials.go) and the hub's root ApplicationSet. With config.yaml's
// roots.kind: Application each cluster's root is instead a plain
// Application at its pin, named by roots.name. The AppProjects the roots
// name go first (projects.go).
//
// Where a bundle is applied is named, never assumed: [ReadKubeconfig] and
// [Kubeconfig.Target] choose the cluster's context and refuse one that
// reaches another cluster's server (target.go); [NewPlan] says what goes
// where, for the CLI to show before it writes. [Manifest] writes a bundle
// as YAML for kubectl apply -f -; [Applier] applies it server-side
// (apply.go); [InstallArgoCD] installs Argo CD with the Helm library
// (helm.go). Nothing here prints: package cli does.
//
// docs/bootstrap.md describes both models, projects, pins and the choice of
// context in full.
package bootstrap
