//go:build linux

package e2e

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/strata-fleet/strata/internal/bootstrap"
)

// TestE2EPins: a pinned environment keeps running its pinned commit while
// the branch moves on; strata pin moves the pin (through its manual gate)
// and a commit to the branch moves the environment's cluster: the hub's
// root ApplicationSet reads the pin in the spoke's rendered values.yaml at
// the branch. Nothing is bootstrapped again, and the cluster secret never
// names a pin.
func TestE2EPins(t *testing.T) {
	e := Start(t, Options{Spokes: []Spoke{
		{Name: "spoke-a", Target: "integration/int-sector-1/us-east1"}, // follows main
		{Name: "spoke-b", Target: "stage/stage-sector-1/ap-south1"},    // pinned
	}})
	defer e.Done()
	mark := e.Mark()

	c1 := deploy(t, e)
	e.Converge(Expect{Head: c1, Apps: expectApps(e), State: expectState(e, allAt(e, "1.0.0"))})
	e.checkSecret("spoke-b", "main")
	mark("deploy the fleet at 1.0.0")

	// Pin stage to the commit it runs. stage is a manual gate.
	if r := e.Strata("pin", "stage", c1); r.Code == 0 || !strings.Contains(r.Stderr, `manual gate "stage"`) {
		t.Errorf("pin stage without --approve: want a refusal naming the gate, got exit %d\n%s", r.Code, r.Stderr)
	}
	r := e.MustStrata("pin", "stage", c1, "--approve")
	if strings.Contains(r.Stdout, "strata bootstrap") || !strings.Contains(r.Stdout, "spoke-b read the pin there") {
		t.Errorf("strata pin: want spoke-b following through Git, no bootstrap, got\n%s", r.Stdout)
	}
	c2 := e.Commit("pin stage to " + c1[:12])
	e.Converge(Expect{Head: c2, Apps: expectApps(e), State: expectState(e, allAt(e, "1.0.0"))})
	e.checkRoot("spoke-b", c1)
	mark("pin stage to the commit it runs: followed through Git")

	// The branch moves on: integration follows, stage keeps its commit.
	e.Repo.ReplaceInFile("config/spoke/demo/values.yaml", `version: "1.0.0"`, `version: "2.0.0"`)
	e.MustStrata("render")
	c3 := e.Commit("demo 2.0.0")
	e.Converge(Expect{Head: c3, Apps: expectApps(e), State: expectState(e, map[string]string{
		"spoke-a": "2.0.0", "spoke-b": "1.0.0",
	})})
	e.checkRoot("spoke-b", c1)
	mark("move main: only the unpinned cluster follows")

	// Move the pin: a commit, and stage follows.
	r = e.MustStrata("pin", "stage", c3, "--approve")
	if !strings.Contains(r.Stdout, "spoke-b") {
		t.Errorf("strata pin: want spoke-b among the clusters whose revision changes, got\n%s", r.Stdout)
	}
	c4 := e.Commit("pin stage to " + c3[:12])
	e.Converge(Expect{Head: c4, Apps: expectApps(e), State: expectState(e, allAt(e, "2.0.0"))})
	e.checkRoot("spoke-b", c3)
	e.checkSecret("spoke-b", "main")
	mark("move the pin: the pinned cluster follows, no bootstrap")
}

// checkRoot checks the revision the spoke's root Application, made by the
// hub's root ApplicationSet, deploys.
func (e *Env) checkRoot(spoke, want string) {
	e.t.Helper()
	apps, err := e.Apps()
	if err != nil {
		e.t.Fatal(err)
	}
	if got := apps[spoke+"-root"].TargetRevision; got != want {
		e.t.Errorf("Application %s-root: targetRevision %q, want %q", spoke, got, want)
	}
}

// checkSecret checks the revision the spoke's cluster secret on the hub
// names: the branch the root reads the pin at.
func (e *Env) checkSecret(spoke, want string) {
	e.t.Helper()
	ctx, cancel := e.ctx()
	defer cancel()
	sec, err := e.Hub.Kube.CoreV1().Secrets(Namespace).Get(ctx, spoke, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	if got := sec.Annotations[bootstrap.RevisionAnnotation]; got != want {
		e.t.Errorf("cluster secret %s: %s = %q, want %q", spoke, bootstrap.RevisionAnnotation, got, want)
	}
}
