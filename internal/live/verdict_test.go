package live

import (
	"encoding/json"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// TestVerdicts holds strata's one definition of "done and healthy"
// (verdict.go, docs/verdicts.md) against the status shapes Argo CD v3
// writes on an Application (pkg/apis/application/v1alpha1: sync codes
// Synced/OutOfSync/Unknown; health Healthy/Progressing/Degraded/Suspended/
// Missing/Unknown; operation and hook phases Running/Terminating/Failed/
// Error/Succeeded; results Synced/SyncFailed/Pruned/PruneSkipped; error and
// warning conditions; fields left out). Each status is decoded as a list
// of Applications is (decodeApp) and as a watch event is (parseApp), then
// judged; the row says the verdict and the reason printed with it.
func TestVerdicts(t *testing.T) {
	const hookFailed = `{"phase": "Failed", "message": "one or more synchronization tasks completed unsuccessfully",
		"syncResult": {"revision": "abc", "resources": [
			{"kind": "Deployment", "namespace": "shop", "name": "web", "status": "Synced", "message": "deployment.apps/web configured", "syncPhase": "Sync"},
			{"group": "batch", "version": "v1", "kind": "Job", "namespace": "shop", "name": "smoke", "status": "Synced",
			 "message": "Job has reached the specified backoff limit", "hookType": "PostSync", "hookPhase": "Failed", "syncPhase": "PostSync"}]}}`
	tests := []struct {
		name string
		// status is the Application's status; comparedTo (the current
		// spec) is added unless stale.
		status string
		stale  bool
		// contains: the cluster's root deployed the change.
		contains bool
		state    State
		reason   string
	}{
		{name: "synced, healthy, last sync succeeded",
			status:   `{"sync": {"status": "Synced", "revision": "abc"}, "health": {"status": "Healthy"}, "operationState": {"phase": "Succeeded", "message": "successfully synced (all tasks run)"}}`,
			contains: true, state: Healthy},
		{name: "synced, healthy, never synced by an operation",
			status:   `{"sync": {"status": "Synced"}, "health": {"status": "Healthy"}}`,
			contains: true, state: Healthy},
		{name: "PostSync hook failed while synced and healthy",
			status:   `{"sync": {"status": "Synced"}, "health": {"status": "Healthy"}, "operationState": ` + hookFailed + `}`,
			contains: true, state: Failed,
			reason: "sync failed: one or more synchronization tasks completed unsuccessfully; PostSync hook Job shop/smoke: Failed; Job has reached the specified backoff limit"},
		{name: "PreSync hook errored",
			status: `{"sync": {"status": "OutOfSync"}, "health": {"status": "Healthy"}, "operationState": {"phase": "Error", "message": "hook error",
				"syncResult": {"resources": [{"kind": "Pod", "namespace": "shop", "name": "migrate", "hookType": "PreSync", "hookPhase": "Error", "message": "ImagePullBackOff"}]}}}`,
			contains: true, state: Failed,
			reason: "sync error: hook error; PreSync hook Pod shop/migrate: Error; ImagePullBackOff"},
		{name: "a resource failed to apply",
			status: `{"sync": {"status": "OutOfSync"}, "health": {"status": "Missing"}, "operationState": {"phase": "Failed", "message": "one or more objects failed to apply",
				"syncResult": {"resources": [{"kind": "ConfigMap", "namespace": "shop", "name": "conf", "status": "SyncFailed", "message": "admission webhook denied the request"}]}}}`,
			contains: true, state: Failed,
			reason: "sync failed: one or more objects failed to apply; ConfigMap shop/conf: SyncFailed; admission webhook denied the request"},
		{name: "succeeded with a failed hook in its result",
			status: `{"sync": {"status": "Synced"}, "health": {"status": "Healthy"}, "operationState": {"phase": "Succeeded", "message": "successfully synced",
				"syncResult": {"resources": [{"kind": "Job", "name": "smoke", "hookType": "PostSync", "hookPhase": "Failed"}]}}}`,
			contains: true, state: Failed,
			reason: "sync succeeded, yet some of its resources failed: successfully synced; PostSync hook Job smoke: Failed"},
		{name: "pruned and prune-skipped results are no failure",
			status: `{"sync": {"status": "Synced"}, "health": {"status": "Healthy"}, "operationState": {"phase": "Succeeded",
				"syncResult": {"resources": [{"kind": "Service", "name": "old", "status": "Pruned"}, {"kind": "Secret", "name": "kept", "status": "PruneSkipped"}]}}}`,
			contains: true, state: Healthy},
		{name: "a failure shown before the root deployed the change",
			status:   `{"sync": {"status": "Synced"}, "health": {"status": "Healthy"}, "operationState": ` + hookFailed + `}`,
			contains: false, state: Failed,
			reason: "sync failed: one or more synchronization tasks completed unsuccessfully; PostSync hook Job shop/smoke: Failed; Job has reached the specified backoff limit"},
		{name: "operation running",
			status:   `{"sync": {"status": "OutOfSync"}, "health": {"status": "Progressing"}, "operationState": {"phase": "Running", "message": "waiting for completion of hook batch/Job/smoke"}}`,
			contains: true, state: Waiting, reason: "syncing"},
		{name: "operation running a retry",
			status:   `{"sync": {"status": "OutOfSync"}, "health": {"status": "Healthy"}, "operationState": {"phase": "Running", "retryCount": 2, "message": "Retrying attempt #2 at 10:02AM: one or more objects failed to apply"}}`,
			contains: true, state: Failed, reason: "sync failed, Argo CD retries it: Retrying attempt #2 at 10:02AM: one or more objects failed to apply"},
		{name: "between the attempts of a sync Argo CD retries after its hook failed",
			status: `{"sync": {"status": "Synced"}, "health": {"status": "Healthy"}, "operationState": {"phase": "Running", "retryCount": 1,
				"finishedAt": "2026-11-26T15:04:00Z", "message": "one or more synchronization tasks completed unsuccessfully. Retrying attempt #1 at 3:04PM.",
				"syncResult": {"revision": "abc", "resources": [{"group": "batch", "kind": "Job", "namespace": "shop", "name": "smoke", "status": "Synced",
				 "message": "Job has reached the specified backoff limit", "hookType": "PostSync", "hookPhase": "Failed", "syncPhase": "PostSync"}]}}}`,
			contains: true, state: Failed,
			reason: "sync failed, Argo CD retries it: one or more synchronization tasks completed unsuccessfully. Retrying attempt #1 at 3:04PM.; PostSync hook Job shop/smoke: Failed; Job has reached the specified backoff limit"},
		{name: "an attempt of a sync Argo CD retries, running its hook again",
			status: `{"sync": {"status": "Synced"}, "health": {"status": "Healthy"}, "operationState": {"phase": "Running", "retryCount": 1,
				"message": "waiting for completion of hook batch/Job/smoke",
				"syncResult": {"revision": "abc", "resources": [{"group": "batch", "kind": "Job", "namespace": "shop", "name": "smoke", "hookType": "PostSync", "hookPhase": "Running"}]}}}`,
			contains: true, state: Failed, reason: "sync failed, Argo CD retries it: waiting for completion of hook batch/Job/smoke"},
		{name: "operation terminating",
			status:   `{"sync": {"status": "Synced"}, "health": {"status": "Healthy"}, "operationState": {"phase": "Terminating"}}`,
			contains: true, state: Waiting, reason: "syncing"},
		{name: "operation in a phase strata does not know",
			status:   `{"sync": {"status": "Synced"}, "health": {"status": "Healthy"}, "operationState": {"phase": "Paused", "message": "?"}}`,
			contains: true, state: Unknown, reason: `last operation in phase "Paused": ?`},
		{name: "root has not deployed the change",
			status:   `{"sync": {"status": "Synced"}, "health": {"status": "Healthy"}, "operationState": {"phase": "Succeeded"}}`,
			contains: false, state: Waiting, reason: "Argo CD has not synced the change yet"},
		{name: "compared to an earlier spec",
			status:   `{"sync": {"status": "Synced", "comparedTo": {"source": {"repoURL": "https://git.example/fleet", "path": "old"}}}, "health": {"status": "Healthy"}}`,
			stale:    true,
			contains: true, state: Waiting, reason: "Argo CD has not compared the new spec yet"},
		{name: "no status at all",
			status:   `{}`,
			stale:    true,
			contains: true, state: Waiting, reason: "Argo CD has not compared the new spec yet"},
		{name: "out of sync",
			status: `{"sync": {"status": "OutOfSync"}, "health": {"status": "Healthy"}, "operationState": {"phase": "Succeeded"},
				"resources": [{"kind": "ConfigMap", "namespace": "shop", "name": "conf", "status": "OutOfSync", "health": {"status": "Healthy"}}]}`,
			contains: true, state: OutOfSync, reason: "out of sync: ConfigMap shop/conf"},
		{name: "sync status Unknown",
			status:   `{"sync": {"status": "Unknown"}, "health": {"status": "Healthy"}}`,
			contains: true, state: Unknown, reason: "sync status Unknown"},
		{name: "sync status left out",
			status:   `{"sync": {}, "health": {"status": "Healthy"}}`,
			contains: true, state: Unknown, reason: "sync status Unknown"},
		{name: "comparison error",
			status: `{"sync": {"status": "Unknown"}, "health": {"status": "Healthy"},
				"conditions": [{"type": "ComparisonError", "message": "Failed to load target state: rpc error: code = Unknown desc = repository not found"}]}`,
			contains: true, state: Unknown, reason: "ComparisonError: Failed to load target state: rpc error: code = Unknown desc = repository not found"},
		{name: "comparison error with an old comparedTo",
			status:   `{"sync": {"status": "Unknown"}, "conditions": [{"type": "ComparisonError", "message": "helm template failed"}]}`,
			stale:    true,
			contains: true, state: Unknown, reason: "ComparisonError: helm template failed"},
		{name: "invalid spec",
			status: `{"sync": {"status": "Unknown"}, "health": {"status": "Unknown"},
				"conditions": [{"type": "InvalidSpecError", "message": "application destination server 'https://x' and namespace 'shop' do not match any of the allowed destinations in project 'shop'"}]}`,
			contains: true, state: Unknown,
			reason: "InvalidSpecError: application destination server 'https://x' and namespace 'shop' do not match any of the allowed destinations in project 'shop'"},
		{name: "unknown controller error",
			status:   `{"sync": {"status": "Synced"}, "health": {"status": "Healthy"}, "conditions": [{"type": "UnknownError", "message": "project shop not found"}]}`,
			contains: true, state: Unknown, reason: "UnknownError: project shop not found"},
		{name: "automated sync failed",
			status: `{"sync": {"status": "Synced"}, "health": {"status": "Healthy"}, "operationState": {"phase": "Succeeded"},
				"conditions": [{"type": "SyncError", "message": "Failed last sync attempt to [abc]: one or more objects failed to apply"}]}`,
			contains: true, state: Failed, reason: "SyncError: Failed last sync attempt to [abc]: one or more objects failed to apply"},
		{name: "deletion error",
			status:   `{"sync": {"status": "Synced"}, "health": {"status": "Healthy"}, "conditions": [{"type": "DeletionError", "message": "namespace stuck"}]}`,
			contains: true, state: Failed, reason: "DeletionError: namespace stuck"},
		{name: "warnings are no failure",
			status: `{"sync": {"status": "Synced"}, "health": {"status": "Healthy"}, "conditions": [
				{"type": "SharedResourceWarning", "message": "ConfigMap/conf is part of applications a and b"},
				{"type": "RepeatedResourceWarning", "message": "Resource /Pod/shop/p appeared 2 times"},
				{"type": "ExcludedResourceWarning", "message": "excluded"},
				{"type": "OrphanedResourceWarning", "message": "1 orphaned resource"}]}`,
			contains: true, state: Healthy},
		{name: "progressing",
			status:   `{"sync": {"status": "Synced"}, "health": {"status": "Progressing", "message": "Waiting for rollout to finish: 1 of 2 updated replicas are available..."}}`,
			contains: true, state: Synced, reason: "health Progressing; Waiting for rollout to finish: 1 of 2 updated replicas are available..."},
		{name: "suspended",
			status:   `{"sync": {"status": "Synced"}, "health": {"status": "Suspended"}}`,
			contains: true, state: Synced, reason: "health Suspended"},
		{name: "degraded",
			status: `{"sync": {"status": "Synced"}, "health": {"status": "Degraded"}, "operationState": {"phase": "Succeeded"},
				"resources": [{"group": "apps", "kind": "Deployment", "namespace": "shop", "name": "web", "status": "Synced", "health": {"status": "Degraded", "message": "Deployment \"web\" exceeded its progress deadline"}}]}`,
			contains: true, state: Degraded, reason: `unhealthy: Deployment shop/web (Deployment "web" exceeded its progress deadline)`},
		{name: "degraded while out of sync",
			status:   `{"sync": {"status": "OutOfSync"}, "health": {"status": "Degraded", "message": "0/1 ready"}}`,
			contains: true, state: Degraded, reason: "0/1 ready"},
		{name: "health Missing while synced",
			status: `{"sync": {"status": "Synced"}, "health": {"status": "Missing"},
				"resources": [{"kind": "Service", "namespace": "shop", "name": "web", "status": "Synced", "health": {"status": "Missing"}}]}`,
			contains: true, state: Missing, reason: "health Missing; unhealthy: Service shop/web"},
		{name: "health Unknown",
			status:   `{"sync": {"status": "Synced"}, "health": {"status": "Unknown", "message": "health check panicked"}}`,
			contains: true, state: Unknown, reason: "health Unknown; health check panicked"},
		{name: "health left out",
			status:   `{"sync": {"status": "Synced"}}`,
			contains: true, state: Unknown, reason: "health Unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := application(t, tt.status, tt.stale)
			data, err := json.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			fromList, err := decodeApp(jsontext.Value(data), false)
			if err != nil {
				t.Fatal(err)
			}
			fromWatch := parseApp(obj, false)
			for how, a := range map[string]*App{"list": &fromList, "watch": &fromWatch} {
				st, why := appState(a, tt.contains)
				if st != tt.state || why != tt.reason {
					t.Errorf("from a %s: verdict %s, %q; want %s, %q", how, st, why, tt.state, tt.reason)
				}
				if st.Done() != (tt.state == Healthy) {
					t.Errorf("from a %s: %s.Done() = %v", how, st, st.Done())
				}
			}
		})
	}
}

// application is an Application with the given status; unless stale, its
// status says Argo CD compared its current spec.
func application(t *testing.T, status string, stale bool) map[string]any {
	t.Helper()
	spec := map[string]any{
		"source":      map[string]any{"repoURL": "https://git.example/fleet", "path": "charts/web", "targetRevision": "main"},
		"destination": map[string]any{"server": "https://kubernetes.default.svc", "namespace": "shop"},
	}
	var st map[string]any
	if err := json.Unmarshal([]byte(status), &st); err != nil {
		t.Fatalf("status: %v", err)
	}
	if !stale {
		sync, _ := st["sync"].(map[string]any)
		if sync == nil {
			sync = map[string]any{}
			st["sync"] = sync
		}
		sync["comparedTo"] = map[string]any{"source": spec["source"], "destination": spec["destination"]}
	}
	return map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
		"metadata": map[string]any{"name": "web", "namespace": "argocd"},
		"spec":     spec, "status": st,
	}
}
