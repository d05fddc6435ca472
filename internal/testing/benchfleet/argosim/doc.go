// Package argosim plays Argo CD's application controller for benchmarks:
// it is test code, never part of strata.
//
// A Sim is told of each push to the fleet's remote (Pushed). It reads what
// the pushed revision changed under rendered/ (git diff against the last
// revision it saw) and, after a set delay, writes into Argo CD's namespace
// on one API server what the hub's roots would make of it: each changed
// Application with its rendered spec, synced at the revision and healthy
// (status.sync.revision/status, status.health.status and
// status.operationState as Argo CD v3.5 writes them), failed for the
// clusters Fail names, or synced and Degraded where Degrade says; and the
// root Application of every cluster whose rendered/ directory changed,
// synced at the revision. Roots of clusters
// the push did not touch keep their older revision (real Argo CD moves them
// all; strata only asks that a root contains the change it waits on).
//
// Pushes are handled in order by one goroutine; the writes of one push go
// out in parallel. It never lists or polls: it knows the objects it wrote.
// Healthy records when the last Application of each revision was written
// healthy (of each commit a push carried), for the benchmark to compare
// with the next push.
//
// bench.go holds what this package's BenchmarkDelivery and package e2e's
// BenchmarkE2EDelivery share: EnvInt, RunChild (strata as a child: wall,
// peak RSS, CPU), Pct and Dist; calls.go their tally of strata's calls.
// BenchmarkStep (step_test.go) times one step of the rollout's writer on
// BenchmarkDelivery's fleet, without an API server or argosim. TestSoak
// (soak_test.go, run by hack/soak.sh) leaves a --watch runner and CI's
// --once runs to a week of simulated pushes against argosim and checks
// the record's invariants at every point.
package argosim
