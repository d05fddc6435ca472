// Package webhook receives the push events of Git hosting services for
// strata rollout --watch (--webhook-addr, --webhook-secret-file), so that
// the runner fetches as soon as someone pushes instead of at its next
// --interval.
//
// [Handler] serves POST /webhook. A request is taken only when it is
// signed with the shared secret: GitHub's X-Hub-Signature-256 and
// Gitea's or Forgejo's X-Gitea-Signature / X-Forgejo-Signature (HMAC-SHA256
// of the body), or GitLab's X-Gitlab-Token (the secret itself, compared in
// constant time); every such header a request carries must verify. It
// must name its delivery (X-GitHub-Delivery, X-Gitlab-Event-UUID,
// X-Gitea-Delivery, X-Forgejo-Delivery), one not seen before, and its body
// is read up to [DefaultMaxBody]; [Handler.Server] bounds how long reading
// it may take. A signed push event calls the [Wake] given to [New]: the
// runner's wake channel (pushes that come together make one fetch), or,
// on a runner that stands by, the push handed to the leader through their
// Lease; any other signed event is acknowledged and does nothing. The body is
// never parsed: the runner fetches the repository and reads what changed
// from Git, so nothing a request says is believed beyond "someone pushed".
//
// Every request to POST /webhook is counted by result in
// strata_webhook_requests_total
// ([Handler.Collectors]), on the runner's /metrics.
package webhook
