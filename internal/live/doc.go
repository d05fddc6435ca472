// Package live reads what Argo CD says of a fleet and joins it to the
// rollout matrix: per target x component, whether the clusters run what the
// repository renders (SPEC section 5a).
//
// Main entry points:
//   - [ArgoCDs] lists the Argo CDs of the inventory; [Read] lists each one's
//     Applications and ApplicationSets (one paginated list each), through
//     the caller's [Connect] ([Kubeconfig.Connect] for the CLI; [ClientFor]
//     builds on kube.Secure);
//   - [Expect] and [Join] map live objects to their cells (cluster, object,
//     component), reporting unmapped and missing ones;
//   - [State] compares an object's rendered commit ([History]), its root's
//     deployed revision and its status; whether it is done and healthy is
//     decided once, in verdict.go (docs/verdicts.md);
//   - [Compare] is diff --live; [Watch] streams changes for commands that
//     wait (strata rollout), each lasting [WatchSpan];
//   - [Reason] and [GroupUnreached] say why Argo CDs could not be read.
//
// Nothing here prints: package cli and package web show the [Report].
// docs/live.md describes where it reads, how objects map to cells and how
// states are decided, in full.
package live
