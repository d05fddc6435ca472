//go:build linux

package e2e

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/strata-fleet/strata/internal/bootstrap"
)

// TestE2EPins: a pinned environment keeps running its pinned commit while
// the branch moves on; strata pin moves the pin (through its manual gate),
// strata bootstrap --apply hands the new revision to the hub, and the
// environment's cluster follows.
func TestE2EPins(t *testing.T) {
	e := Start(t, Options{Spokes: []Spoke{
		{Name: "spoke-a", Target: "integration/int-sector-1/us-east1"}, // follows main
		{Name: "spoke-b", Target: "stage/stage-sector-1/ap-south1"},    // pinned
	}})
	defer e.Done()
	mark := e.Mark()

	c1 := deploy(t, e)
	e.Converge(Expect{Head: c1, Apps: expectApps(e), State: expectState(e, allAt(e, "1.0.0"))})
	mark("deploy the fleet at 1.0.0")

	// Pin stage to the commit it runs. stage is a manual gate.
	if r := e.Strata("pin", "stage", c1); r.Code == 0 || !strings.Contains(r.Stderr, `manual gate "stage"`) {
		t.Errorf("pin stage without --approve: want a refusal naming the gate, got exit %d\n%s", r.Code, r.Stderr)
	}
	e.MustStrata("pin", "stage", c1, "--approve")
	c2 := e.Commit("pin stage to " + c1[:12])
	e.Bootstrap("spoke-b")
	e.checkRevision("spoke-b", c1)
	e.Converge(Expect{Head: c2, Apps: expectApps(e), State: expectState(e, allAt(e, "1.0.0"))})
	mark("pin stage to the commit it runs")

	// The branch moves on: integration follows, stage keeps its commit.
	e.Repo.ReplaceInFile("config/spoke/demo/values.yaml", `version: "1.0.0"`, `version: "2.0.0"`)
	e.MustStrata("render")
	c3 := e.Commit("demo 2.0.0")
	e.Converge(Expect{Head: c3, Apps: expectApps(e), State: expectState(e, map[string]string{
		"spoke-a": "2.0.0", "spoke-b": "1.0.0",
	})})
	mark("move main: only the unpinned cluster follows")

	// Move the pin: stage follows once the hub knows the new revision.
	r := e.MustStrata("pin", "stage", c3, "--approve")
	if !strings.Contains(r.Stdout, "spoke-b") {
		t.Errorf("strata pin: want spoke-b among the clusters whose revision changes, got\n%s", r.Stdout)
	}
	c4 := e.Commit("pin stage to " + c3[:12])
	e.Bootstrap("spoke-b")
	e.checkRevision("spoke-b", c3)
	e.Converge(Expect{Head: c4, Apps: expectApps(e), State: expectState(e, allAt(e, "2.0.0"))})
	mark("move the pin: the pinned cluster follows")
}

// checkRevision checks the revision the spoke's cluster secret on the hub
// names, which its root Application and its Applications follow.
func (e *Env) checkRevision(spoke, want string) {
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
