// Package alert reads alerting systems for strata rollout: the alerts an
// Alertmanager has firing (its API v2, GET /api/v2/alerts, active and
// neither silenced nor inhibited, filtered by matchers), and the samples an
// instant query returns from Prometheus (its API v1, /api/v1/query, through
// Prometheus's own Go client). Both answer with the same [Alert]s: what
// fires, named by its labels, so that a rollout can say which alert held
// or failed a step.
//
// The rule is an alerting rule's: an Alertmanager alert that matches, or a
// query that returns samples, means trouble; no alert and no sample mean
// none. A query that returns a range vector or a string is an error, as it
// is for a Prometheus alerting rule. An answer that says nothing is an
// error too, never "nothing fires": null, an answer larger than
// Client.MaxAnswer, and an empty answer to a query whose metrics have no
// series in Prometheus (it read nothing). ParseQuery checks PromQL with
// Prometheus's own parser, for config.yaml's loader.
//
// Every call has a deadline (Client.Timeout, default 10s); an error names
// the server and carries its own message (Alertmanager's error string,
// Prometheus's errorType and error). No redirect to another scheme, host
// or port is followed, and a password in a server's URL is in no error.
// The callers are package rollout
// (rollout.stopWhen, checked before each step and throughout each wait and
// soak; checks with a prometheus: query); the conditions come from
// config.yaml through package fleet. The tests read real servers too
// (package promenv: Prometheus and Alertmanager built from source).
package alert
