//go:build linux

package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/strata-fleet/strata/internal/live"
)

// liveSpokes are the spokes of TestE2EStatusLive: one the hub's Argo CD
// manages (central model), one that runs its own (distributed model, as
// the hub does for itself).
var liveSpokes = []Spoke{
	{Name: "spoke-a", Target: "integration/int-sector-1/us-east1"},
	{Name: "spoke-d", Target: "stage/stage-sector-1/ap-south1", OwnArgoCD: true},
}

// ownRegion is where liveSpokes' spoke-d's patches go.
const ownRegion = "config/spoke/demo/stage/stage-sector-1/ap-south1/"

// claimPatch makes the demo chart claim a volume, which none binds.
const claimPatch = `applications:
  demo:
    source:
      helm:
        valuesObject:
          claim: true
`

// TestE2EStatusLive: strata status --live -o json shows every Application
// of both Argo CDs as the objects say, and each in the state they make:
// all healthy; an Argo CD that cannot be reached (the spoke's, then the
// hub's) shown unreachable with the reason, the other still shown; a
// ConfigMap edited by hand on each cluster shown as drift (synced at the
// right revision, out of sync); a volume claim lost on each spoke shown as
// degraded; a patch the API server rejects at sync shown as failed with
// Argo CD's message. The fleet's Applications do not
// self-heal here, so that a hand edit stays.
func TestE2EStatusLive(t *testing.T) {
	e := Start(t, Options{Spokes: liveSpokes})
	defer e.Done()
	mark := e.Mark()
	for _, ct := range []string{"hub", "spoke"} {
		e.Repo.ReplaceInFile("config/"+ct+"/defaults.yaml", "selfHeal: true", "selfHeal: false")
	}
	head := deploy(t, e)
	e.Converge(Expect{Head: head, Apps: expectApps(e), State: expectState(e, allAt(e, "1.0.0"))})
	mark("deploy the fleet: the hub's Argo CD and spoke-d's")

	kubeconfig := e.Kubeconfig()
	s := e.StatusLive(kubeconfig)
	checkLive(t, s, nil)
	hubDemo, spokeDemo, ownDemo := appName(e.Hub.Target, "hub-demo"), appName(liveSpokes[0].Target, "demo"), appKey("spoke-d", appName(liveSpokes[1].Target, "demo"))
	for key, model := range map[string]string{hubDemo: "hub on hub", spokeDemo: "spoke-a on hub", ownDemo: "spoke-d on spoke-d"} {
		if a, ok := s.Apps[key]; !ok || a.Of.Cluster+" on "+a.Of.ArgoCD != model {
			t.Errorf("%s: want the Application of %s, got %+v", key, model, a.Of.Expected)
		}
	}
	mark("status --live: all healthy")

	for _, down := range []string{"spoke-d", HubName} {
		s := e.StatusLive(e.Kubeconfig(down))
		reason := s.Unreachable()[down]
		if len(s.Unreachable()) != 1 || !strings.Contains(reason, "connection refused") {
			t.Errorf("%s down: want it alone unreachable, refused; got %v", down, s.Unreachable())
		}
		checkLive(t, s, func(a live.AppState, _ App) (live.State, string) {
			if a.ArgoCD == down {
				return live.Unreachable, reason
			}
			return live.Healthy, ""
		})
	}
	mark("status --live: an unreachable Argo CD, then the other")

	drift := map[string]string{HubName: hubDemo, "spoke-a": spokeDemo, "spoke-d": ownDemo}
	was := map[string]string{}
	for cluster, app := range drift {
		was[cluster] = e.setVersion(cluster, "edited by hand")
		e.WaitApp(app, "out of sync", func(a App) bool { return a.Sync == "OutOfSync" })
	}
	s = e.StatusLive(kubeconfig)
	checkLive(t, s, func(a live.AppState, _ App) (live.State, string) {
		if a.Live != nil && drift[a.Cluster] == appKey(a.ArgoCD, a.Live.Name) {
			return live.OutOfSync, "out of sync: ConfigMap " + namespaceOf(a.Cluster) + "/demo"
		}
		return live.Healthy, ""
	})
	for cluster, app := range drift {
		if a := s.Apps[app]; a.App.Revision != head || a.Of.Contains == nil || !*a.Of.Contains {
			t.Errorf("%s on %s: drift is at the right revision %.12s, shown at %.12s (contains: %v)", app, cluster, head, a.App.Revision, a.Of.Contains)
		}
		e.setVersion(cluster, was[cluster])
	}
	e.Converge(Expect{Head: head, Apps: expectApps(e), State: expectState(e, allAt(e, "1.0.0"))})
	mark("status --live: drift on each cluster, then undone")

	checkDegraded(t, e, kubeconfig, map[string]string{spokeDemo: "spoke-a", ownDemo: "spoke-d"})
	mark("status --live: degraded, in both models")

	e.Repo.WriteFile(firstRegion+"patch-002.yaml", rejectedPatch)
	e.Repo.WriteFile(ownRegion+"patch-003.yaml", rejectedPatch)
	e.MustStrata("render")
	e.Commit("a ConfigMap name the API server rejects, at spoke-a and spoke-d")
	rejected := map[string]bool{spokeDemo: true, ownDemo: true}
	for app := range rejected {
		e.WaitApp(app, "failed at the new commit", func(a App) bool {
			return strings.Contains(a.Message, `"Demo_Rejected" is invalid`)
		})
	}
	s = e.StatusLive(kubeconfig)
	checkLive(t, s, func(a live.AppState, o App) (live.State, string) {
		if a.Live != nil && rejected[appKey(a.ArgoCD, a.Live.Name)] {
			// Argo CD's message of the moment: the API server's, or
			// that it retries the sync.
			return live.Failed, o.Message
		}
		return live.Healthy, ""
	})
	mark("status --live: a sync the API server rejects, in both models")
}

// checkDegraded gives the demo of each cluster of apps (by appKey) a
// volume claim that never binds, then loses it: status --live shows those
// Applications degraded, the others healthy.
func checkDegraded(t *testing.T, e *Env, kubeconfig string, degraded map[string]string) {
	t.Helper()
	e.Repo.WriteFile(firstRegion+"patch-004.yaml", claimPatch)
	e.Repo.WriteFile(ownRegion+"patch-004.yaml", claimPatch)
	e.MustStrata("render")
	head := e.Commit("a claim at spoke-a and spoke-d")
	for app, cluster := range degraded {
		// Synced with the claim, which no volume binds: Progressing.
		e.WaitApp(app, "synced with its claim", func(a App) bool {
			return a.Sync == "Synced" && a.Revision == head && a.Health == "Progressing"
		})
		e.loseClaim(cluster)
		e.WaitApp(app, "degraded", func(a App) bool { return a.Health == "Degraded" })
	}
	checkLive(t, e.StatusLive(kubeconfig), func(a live.AppState, _ App) (live.State, string) {
		if a.Live != nil && degraded[appKey(a.ArgoCD, a.Live.Name)] != "" {
			return live.Degraded, ""
		}
		return live.Healthy, ""
	})
}

// checkLive checks that s shows the objects as they are, and each rendered
// object in the state want says of it and its Application object (nil: all
// healthy), with a reason that contains want's.
func checkLive(t *testing.T, s *LiveStatus, want func(live.AppState, App) (live.State, string)) {
	t.Helper()
	for _, m := range s.Mismatches() {
		t.Errorf("status --live: %s", m)
	}
	for _, key := range sortedKeys(s.Apps) {
		a := s.Apps[key]
		if a.Of.Name == "" {
			continue // a root
		}
		state, reason := live.Healthy, ""
		if want != nil {
			state, reason = want(a.Of, s.Objects[key])
		}
		if a.Of.State != state || !strings.Contains(a.Of.Reason, reason) {
			t.Errorf("status --live: %s %s of %s on %s: %s (%s), want %s (%s)",
				a.Of.Kind, a.Of.Name, a.Of.Cluster, a.Of.ArgoCD, a.Of.State, a.Of.Reason, state, reason)
		}
	}
	for in, reason := range s.Unreachable() {
		shown := 0
		for _, ct := range s.ClusterTypes {
			for _, tg := range ct.Targets {
				for _, c := range tg.Cells {
					for _, a := range liveApps(c.Live) {
						if a.ArgoCD == in {
							shown++
							if a.State != live.Unreachable || a.Reason != reason {
								t.Errorf("status --live: %s of %s: %s (%s), want unreachable (%s)", a.Name, a.Cluster, a.State, a.Reason, reason)
							}
						}
					}
				}
			}
		}
		if shown == 0 {
			t.Errorf("status --live: nothing of the unreachable Argo CD of %s is shown", in)
		}
	}
}

func liveApps(c *live.Cell) []live.AppState {
	if c == nil {
		return nil
	}
	return c.Apps
}

// namespaceOf is the namespace of the demo ConfigMap on a cluster.
func namespaceOf(cluster string) string {
	if cluster == HubName {
		return "hub-demo"
	}
	return "demo"
}

// setVersion sets the version of the demo ConfigMap on a cluster by hand,
// as someone with kubectl would, and returns the one it had.
func (e *Env) setVersion(cluster, version string) string {
	e.t.Helper()
	ctx, cancel := e.ctx()
	defer cancel()
	cms := e.clusterNamed(cluster).Kube.CoreV1().ConfigMaps(namespaceOf(cluster))
	cm, err := cms.Get(ctx, "demo", metav1.GetOptions{})
	if err != nil {
		e.t.Fatalf("reading ConfigMap demo on %s: %v", cluster, err)
	}
	was := cm.Data["version"]
	patch, _ := json.Marshal(map[string]any{"data": map[string]string{"version": version}})
	if _, err := cms.Patch(ctx, "demo", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		e.t.Fatalf("editing ConfigMap demo on %s: %v", cluster, err)
	}
	e.t.Logf("set the version of ConfigMap %s/demo on %s by hand: %q (was %q)", namespaceOf(cluster), cluster, version, was)
	return was
}

// loseClaim sets the phase of the demo claim on a cluster to Lost, as a
// volume controller would when its volume went away.
func (e *Env) loseClaim(cluster string) {
	e.t.Helper()
	ctx, cancel := e.ctx()
	defer cancel()
	patch := []byte(`{"status":{"phase":"Lost"}}`)
	_, err := e.clusterNamed(cluster).Kube.CoreV1().PersistentVolumeClaims(namespaceOf(cluster)).Patch(ctx, "demo", types.MergePatchType, patch, metav1.PatchOptions{}, "status")
	if err != nil {
		e.t.Fatalf("losing the claim demo on %s: %v", cluster, err)
	}
}
