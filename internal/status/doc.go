// Package status computes the rollout matrix of a fleet: every target (rows,
// in sequence order) by every component (columns), each cell the effective
// version of the component's Applications and ApplicationSets (their
// sources' targetRevision after the merge) and the patches in effect there;
// and, per patch, where it stands in the sequence, the next location a
// promotion takes it to, the manual gates ahead and how many targets have it,
// and what it deletes (deletes.go: the Applications and ApplicationSets it
// switches off, where it has and where its next promotion would, with their
// workloads when the resources finalizer cascades): status shows the working
// tree, not a change against a revision, so a destructive change is, in its
// model, a patch that switches resources off.
// A patch is in effect at a target by its file; a field of it that a file of
// a more specific level sets again never reaches the target, and the cell
// marks it shadowed (Cell.Shadowed, "+001!" in the table, a struck badge in
// HTML; fleet.Component.Shadows computes it, strata validate warns).
// Revisions are shown as Argo CD resolves them: an expression escaped once
// ("{{`{{ .Values.cluster.revision }}`}}") as the cluster's root object
// resolves it, with the pin.
//
// Data comes from a loaded fleet (package fleet) and from promote.Prepare,
// which plans the next promotion without touching anything. The result is
// plain data that encodes as JSON; [WriteTable] prints it as a table that
// fits a width, [WriteHTML] as a self-contained HTML page. The web UI
// (package web) shows the same data. [ReadRollouts] adds where each
// rollout in flight stands (package rollout's Flights: from the Git
// history, and the live state when read); the table ends with them, the
// JSON has them as "rollouts". [ReadFolded] and [ReadAllFolded] add the
// patches folded into values.yaml, when and by which commit (folded.go,
// "folded"). Target names, as every command takes
// them, are defined here too: [TargetName] and [FindTarget].
package status
