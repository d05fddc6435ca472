// Package livecache is the rollouts' shared cache of live state, as Argo
// CD keeps its own in controller/cache: one read of each Argo CD's
// Applications (a list), then a watch from its resource version, each
// change applied in place to what the [Cache] holds (cache.go). Each
// rollout looks through its own [View]: a change wakes only the views
// whose [Scope] it concerns (scope.go), never a poll. The cache also asks
// the refreshes of the roots that have not deployed a step yet, shared by
// every wait of the process (refresh.go), and terminates an operation
// Argo CD retries (Terminate).
//
// It knows nothing of steps or patches: what a wait selects is a Scope,
// made by the rollout engine (package rollout) from what the rendered
// output expects.
package livecache
