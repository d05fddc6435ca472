// Package runner is strata rollout --watch: one long-lived process that
// keeps delivering a fleet repository. Every Options.Interval it brings the
// work tree up to its upstream (a fetch and a fast-forward, under the
// repository lock) and starts a rollout (rollout.RunPatch, as rollout --all
// does) for each patch in flight that none runs yet; the rollouts wait and
// soak side by side, each failing alone. A patch whose rollout ended (a
// gate, a failure) is started again only once its files change in Git, so
// a failed patch is not retried in a loop and an approval pushed for it is
// taken; one that ended on another error (the remote, a cluster, a lock
// held) is started again at the next look. All state comes from Git and
// the clusters, as for rollout.
//
// [Metrics] turns the rollouts' events into Prometheus metrics (rollouts in
// flight, steps, step durations, failures, reaction time) and serves them
// with /healthz ([Metrics.Handler]). [Lead] runs the runner only while it
// holds a Kubernetes Lease (client-go's leader election), so that two
// runners of one repository never drive a step twice: the other stands by
// and takes over when the leader's lease expires. A push webhook taken by
// the runner that stands by is handed to the leader through the same
// Lease ([Relay], [PushWake]): an annotation the leader watches.
package runner
