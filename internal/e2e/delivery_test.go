//go:build linux

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-fleet/strata/internal/testing/testenv"
	"github.com/strata-fleet/strata/internal/testing/testgit"
)

// The delivery scenarios of issue 25 against real Argo CD, in one fleet
// (starting Argo CD and the API servers is most of an e2e test's cost):
// a rollout that cannot reach its Argo CD, two patches rolled out at once
// while someone else pushes, waves over a sector's regions, a freeze during
// a soak, and a spoke kept unhealthy within the failure budget and beyond
// it.

// deliverySpokes: one region of integration, then a sector of three
// regions of stage, which config.yaml rolls out in waves of [1, 100%].
var deliverySpokes = []Spoke{
	{Name: "spoke-a", Target: "integration/int-sector-1/us-east1"},
	{Name: "spoke-c", Target: "stage/stage-sector-1/ap-south1"},
	{Name: "spoke-d", Target: "stage/stage-sector-1/ap-east1"},
	{Name: "spoke-e", Target: "stage/stage-sector-1/ap-west1"},
}

// deliveryConfig is config.yaml of the delivery fleet: no manual gate, a
// soak of 8 s in integration (long enough to push a freeze during it),
// none in stage, whose sector enters one region, then the other two, and
// lets one cluster of a step fail.
const deliveryConfig = `# The delivery scenarios' fleet (delivery_test.go).
dimensions:
  - environments
  - sectors
  - regions
render:
  namePrefix: "{{ .Values.cluster.sector }}-{{ .Values.cluster.region }}-"
repository:
  url: __FLEET_REPO__
  revision: main
promotion:
  level: regions
rollout:
  soak: 0s
  timeout: 4m
sequence:
  environments:
    - name: integration
      rollout:
        soak: 8s
      sectors:
        - name: int-sector-1
          regions:
            - name: us-east1
    - name: stage
      sectors:
        - name: stage-sector-1
          rollout:
            waves: [1, 100%]
            maxUnhealthy: 1
          regions:
            - name: ap-south1
            - name: ap-east1
            - name: ap-west1
cluster_types:
  - name: hub
  - name: spoke
`

// webValues is a second component of the spokes, the demo chart again
// under the name web, so that two patches of different components roll
// out side by side.
const webValues = `applications:
  web:
    source:
      repoURL: __FLEET_REPO__
      path: charts/demo
      targetRevision: "{{` + "`{{ .Values.cluster.revision }}`" + `}}"
      helm:
        valuesObject:
          name: web
          cluster:
            name: "{{` + "`{{ .Values.cluster.name }}`" + `}}"
            environment: "{{ .Values.cluster.environment }}"
            region: "{{ .Values.cluster.region }}"
          version: "1.0.0"
          tier: standard
    destination:
      namespace: web
`

// versionPatch is a patch that rolls version v of a component out.
func versionPatch(component, v string) string {
	return fmt.Sprintf(`metadata:
  description: %[1]s %[2]s
applications:
  %[1]s:
    source:
      helm:
        valuesObject:
          version: "%[2]s"
`, component, v)
}

// TestE2EDelivery: issue 25's proof against real Argo CD, one scenario
// after the other in one fleet.
func TestE2EDelivery(t *testing.T) {
	testgit.Setenv(t)
	e := Start(t, Options{Spokes: deliverySpokes})
	defer e.Done()
	mark := e.Mark()
	// Every step event is notified, to a receiver and to a dead one
	// (delivery_notify_test.go).
	config, notified := withNotifications(t, strings.ReplaceAll(deliveryConfig, RepoPlaceholder, e.Repo.URL))
	e.Repo.WriteFile("config/config.yaml", config)
	e.Repo.WriteFile("config/spoke/web/values.yaml", strings.ReplaceAll(webValues, RepoPlaceholder, e.Repo.URL))
	// Its one override is at a region this sequence does not have.
	if err := os.RemoveAll(filepath.Join(e.Repo.Dir, "config/spoke/demo/integration")); err != nil {
		t.Fatal(err)
	}
	// Spokes that refuse a version: their Argo CD sync fails with the
	// API server's message, as on a cluster whose admission policy
	// forbids what a patch brings.
	e.refuseVersion("spoke-c", "1.2.0")
	e.refuseVersion("spoke-d", "2.0.0")
	e.refuseVersion("spoke-e", "2.0.0")
	head := deploy(t, e)
	want := deliveryVersions{demo: allAt(e, "1.0.0"), web: allAt(e, "1.0.0")}
	e.Converge(want.expect(e, head))
	mark("deploy the fleet at 1.0.0")

	// One scenario after the other (the Env's helpers fail the test
	// itself, so no subtests).
	e.unreachable(t)
	mark("unreachable Argo CD: nothing committed, exit 5")
	e.rolloutAll(t, &want)
	mark("rollout --all of two patches, someone pushing meanwhile")
	e.freezeDuringSoak(t, &want)
	mark("freeze during a soak, unfreeze; one spoke within maxUnhealthy")
	e.beyondBudget(t)
	mark("two spokes unhealthy, beyond maxUnhealthy 1")
	notified.check(t, e, head)
}

// unreachable: a rollout whose Argo CD cannot be reached (its kubeconfig
// context points at a closed port) stops with exit 5 naming the cluster,
// and commits, pushes and renders nothing.
func (e *Env) unreachable(t *testing.T) {
	const first = "config/spoke/demo/integration/int-sector-1/us-east1/patch-009.yaml"
	e.Repo.WriteFile(first, versionPatch("demo", "9.9.9"))
	head, remote := e.Repo.Git("rev-parse", "HEAD"), e.Repo.Git("ls-remote", "origin", "main")
	r := e.strata(context.Background(), nil, "rollout", "spoke", "demo", "patch-009", "--remote", "origin",
		"--kubeconfig", e.Kubeconfig(HubName), "--context", HubName)
	if r.Code != 5 || !strings.Contains(r.Stderr, HubName) || !strings.Contains(r.Stderr, "127.0.0.1:1") {
		t.Errorf("want exit 5 naming %s and the address it cannot reach, got exit %d\n%s", HubName, r.Code, r.Stderr)
	}
	if got := e.Repo.Git("rev-parse", "HEAD"); got != head {
		t.Errorf("HEAD moved from %.12s to %.12s: %v", head, got, e.subjectsSince(head))
	}
	if got := e.Repo.Git("ls-remote", "origin", "main"); got != remote {
		t.Errorf("the remote moved: %s, was %s", got, remote)
	}
	if got, want := e.Repo.Git("status", "--porcelain", "--untracked-files=all"), "?? "+first; got != want {
		t.Errorf("the work tree changed beyond the patch written by hand:\n%s", got)
	}
	e.Repo.Remove(first)
}

// rolloutAll: two patches of different components, committed at the
// first region by hand, rolled out at once by rollout --all. While they
// soak at their first region, someone else pushes a commit from another
// clone (the next step starts from it), and a second one lands just
// before the rollout's next push (raceNextPush): that push is refused and
// its step replayed on the moved main. Both patches reach their end
// (folded into values.yaml), stage-sector-1 in two waves (one region, then
// the other two), and both commits are kept.
func (e *Env) rolloutAll(t *testing.T, want *deliveryVersions) {
	for _, c := range []string{"demo", "web"} {
		e.Repo.WriteFile("config/spoke/"+c+"/integration/int-sector-1/us-east1/patch-001.yaml", versionPatch(c, "1.1.0"))
	}
	e.MustStrata("render")
	base := e.Commit("demo and web 1.1.0 at us-east1")

	other := e.clone("someone")
	out := newLines()
	run := e.start(t, out, "rollout", "--all", "--remote", "origin", "--kubeconfig", e.Hub.API.Kubeconfig, "--context", testenv.ContextName)
	out.wait(t, run, ": soaking")
	other.WriteFile("docs/notes.md", "Pushed by someone else while the rollout soaks.\n")
	pushed := other.Commit("docs: a note pushed during a rollout")
	other.WriteFile("docs/notes.md", "Pushed by someone else just before the rollout's next push.\n")
	raced := e.raceNextPush(other, "docs: a note pushed just before the rollout's")
	r := run.result(t)
	if r.Code != 0 {
		t.Fatalf("rollout --all: exit %d\n%s", r.Code, r.Stderr)
	}
	for _, c := range []string{"demo", "web"} {
		if !strings.Contains(r.Stdout, "spoke/"+c+"/patch-001: patch-001 is rolled out and folded into config/spoke/"+c+"/values.yaml") {
			t.Errorf("%s's patch-001 did not reach its end:\n%s", c, r.Stdout)
		}
	}
	if !strings.Contains(r.Stdout, ": replayed the remote moved (now "+raced[:12]+")") {
		t.Errorf("no step was replayed on %.12s, pushed just before the rollout's:\n%s", raced, r.Stdout)
	}
	for _, c := range []string{pushed, raced} {
		if !strings.Contains(e.Repo.Git("log", "--format=%H", base+"..HEAD"), c) {
			t.Errorf("the commit pushed meanwhile, %.12s, is not in the history: %v", c, e.subjectsSince(base))
		}
	}
	if got, head := e.Repo.Git("ls-remote", "origin", "main"), e.Repo.Git("rev-parse", "HEAD"); !strings.HasPrefix(got, head) {
		t.Errorf("the remote is at %s, the rollout's clone at %s", got, head)
	}
	e.checkWaves(t, base, "demo")
	e.checkWaves(t, base, "web")
	for _, s := range e.Spokes {
		want.demo[s.Name], want.web[s.Name] = "1.1.0", "1.1.0"
	}
	e.checkState(t, *want)
}

// checkWaves checks the steps of component's patch-001 into stage: the
// first wave enters ap-south1 alone, the second the two other regions.
func (e *Env) checkWaves(t *testing.T, since, component string) {
	t.Helper()
	prefix := "Promote patch-001 of spoke/" + component + " to "
	var waves []string
	for _, line := range strings.Split(e.Repo.Git("log", "--reverse", "--format=%H %s", since+"..HEAD"), "\n") {
		sha, subject, _ := strings.Cut(line, " ")
		if !strings.HasPrefix(subject, prefix+"stage/") {
			continue
		}
		waves = append(waves, fmt.Sprintf("%s: %v", strings.TrimPrefix(subject, prefix), renderedTargets(e, sha+"^", sha)))
	}
	want := []string{
		"stage/stage-sector-1/ap-south1 (wave 1 of 2 of stage/stage-sector-1)",
		"stage/stage-sector-1/ap-east1, stage/stage-sector-1/ap-west1 (wave 2 of 2 of stage/stage-sector-1)",
	}
	if len(waves) != len(want) {
		t.Errorf("%s: want 2 steps into stage, one per wave, got %d:\n  %s", component, len(waves), strings.Join(waves, "\n  "))
		return
	}
	for i, w := range want {
		if !strings.HasPrefix(waves[i], w) {
			t.Errorf("%s: step %d into stage is\n  %s\nwant it to start %q", component, i+1, waves[i], w)
		}
	}
}

// freezeDuringSoak: a patch of demo, written by hand at the first region,
// rolled out. During its first soak, stage is frozen from another clone
// (pushed): the next step, into stage, is held; once unfrozen (pushed), it
// goes on. In stage's first wave, spoke-c refuses the version: within
// maxUnhealthy 1, the rollout goes on, naming spoke-c in its events and in
// the next step's Strata-Unhealthy trailer.
func (e *Env) freezeDuringSoak(t *testing.T, want *deliveryVersions) {
	base := e.Repo.Git("rev-parse", "HEAD")
	e.Repo.WriteFile("config/spoke/demo/integration/int-sector-1/us-east1/patch-002.yaml", versionPatch("demo", "1.2.0"))
	ops := e.clone("operator")
	out := newLines()
	run := e.start(t, out, "rollout", "spoke", "demo", "patch-002", "--remote", "origin", "--kubeconfig", e.Hub.API.Kubeconfig, "--context", testenv.ContextName)
	out.wait(t, run, "integration/int-sector-1/us-east1: soaking")
	ops.Git("pull", "-q", "--ff-only")
	e.strataIn(ops, "freeze", "stage", "--reason", "INC-7: the soak looks odd", "--push")
	out.wait(t, run, "held: ")
	if held := out.String(); !strings.Contains(held, "stage is frozen by "+testgit.Name+" <"+testgit.Email+">") || !strings.Contains(held, "INC-7: the soak looks odd") {
		t.Errorf("the held event does not say who froze stage and why:\n%s", held)
	}
	if strings.Contains(out.String(), "Promote patch-002 of spoke/demo to stage") {
		t.Errorf("a step into stage started while it was frozen:\n%s", out.String())
	}
	ops.Git("pull", "-q", "--ff-only")
	e.strataIn(ops, "unfreeze", "stage", "--push")
	r := run.result(t)
	if r.Code != 0 || !strings.Contains(r.Stdout, "patch-002 is rolled out and folded into config/spoke/demo/values.yaml") {
		t.Fatalf("the rollout after the unfreeze: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if !strings.Contains(r.Stdout, "stage/stage-sector-1/ap-south1: the step passed with spoke-c unhealthy, within maxUnhealthy 1; the rollout goes on") {
		t.Errorf("the first wave does not name spoke-c unhealthy within the budget:\n%s", r.Stdout)
	}
	log := e.Repo.Git("log", "--format=%s%n%b", base+"..HEAD")
	for _, s := range []string{"Freeze stage: INC-7: the soak looks odd", "Unfreeze stage", "Strata-Unhealthy: cluster spoke-c (spoke/stage/stage-sector-1/ap-south1)"} {
		if !strings.Contains(log, s) {
			t.Errorf("the history has no %q:\n%s", s, log)
		}
	}
	trailer := e.Repo.Git("log", "-1", "--format=%b", "--grep=^Promote patch-002 of spoke/demo to stage/stage-sector-1/ap-east1")
	if !strings.Contains(trailer, "Strata-Unhealthy: cluster spoke-c") || !strings.Contains(trailer, "version 1.2.0 is refused") {
		t.Errorf("the second wave's commit names no unhealthy spoke-c with the API server's reason:\n%s", trailer)
	}
	for _, s := range e.Spokes {
		want.demo[s.Name] = "1.2.0"
	}
	want.demo["spoke-c"] = "1.1.0" // it refused 1.2.0
	e.checkState(t, *want)
}

// beyondBudget: a patch of web, written by hand at integration and stage's
// first region, whose version spoke-d and spoke-e both refuse: the second
// wave has two unhealthy clusters, one more than maxUnhealthy 1 allows, and
// fails.
func (e *Env) beyondBudget(t *testing.T) {
	for _, at := range []string{"integration", "stage/stage-sector-1/ap-south1"} {
		e.Repo.WriteFile("config/spoke/web/"+at+"/patch-003.yaml", versionPatch("web", "2.0.0"))
	}
	r := e.strata(context.Background(), nil, "rollout", "spoke", "web", "patch-003", "--remote", "origin",
		"--kubeconfig", e.Hub.API.Kubeconfig, "--context", testenv.ContextName)
	if r.Code != 1 {
		t.Fatalf("want the second wave failed, exit 1, got exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	for _, s := range []string{"spoke-d", "spoke-e", "version 2.0.0 is refused"} {
		if !strings.Contains(r.Stderr, s) {
			t.Errorf("the failure does not say %q:\n%s", s, r.Stderr)
		}
	}
	// A wave's events name all its nodes.
	if !strings.Contains(r.Stdout, "Promote patch-003 of spoke/web to stage/stage-sector-1/ap-east1, stage/stage-sector-1/ap-west1 (wave 2 of 2") ||
		!strings.Contains(r.Stdout, "stage/stage-sector-1/ap-east1, stage/stage-sector-1/ap-west1: the step failed (2 failures)") {
		t.Errorf("want the second wave failed with two failures:\n%s", r.Stdout)
	}
}

// deliveryVersions are the versions of demo and web each spoke runs.
type deliveryVersions struct{ demo, web map[string]string }

// expect is the fleet at head with the two components at v's versions.
func (v deliveryVersions) expect(e *Env, head string) Expect {
	x := Expect{Head: head, Apps: expectApps(e), State: expectState(e, v.demo)}
	for _, s := range e.Spokes {
		x.Apps = append(x.Apps, appName(s.Target, "web"))
		x.State[s.Name+"/web/web"] = map[string]string{
			"cluster": s.Name, "environment": env(s.Target), "region": region(s.Target),
			"version": v.web[s.Name], "tier": "standard",
		}
	}
	return x
}

// checkState checks, once, that the spokes run the versions of v: what a
// rollout that ended waited for.
func (e *Env) checkState(t *testing.T, v deliveryVersions) {
	t.Helper()
	st, err := e.ReadState()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range e.Spokes {
		for c, want := range map[string]string{"demo": v.demo[s.Name], "web": v.web[s.Name]} {
			if got := st[s.Name+"/"+c+"/"+c]["version"]; got != want {
				t.Errorf("%s runs %s %s, want %s", s.Name, c, got, want)
			}
		}
	}
}

// raceNextPush commits the work tree of other with message and leaves the
// commit on the remote beside main (refs/heads/someone); the remote's
// pre-receive hook moves main to it when the next push arrives, once, so
// that push, made against the old main, is refused: someone else's push
// that lands between the rollout's fetch and its push, which no test can
// time from outside. It returns the commit.
func (e *Env) raceNextPush(other *Repo, message string) string {
	e.t.Helper()
	bare := filepath.Join(e.Git.Root, "fleet.git")
	other.Git("add", "-A")
	other.Git("commit", "-q", "-m", message)
	other.Git("push", "-q", "origin", "HEAD:refs/heads/someone")
	hook := `#!/bin/sh
# Armed by the test: main moves to refs/heads/someone before the next push
# of main updates it, once (a ref may not be updated in the push's quarantine).
[ -f someone-armed ] || exit 0
# Only a push of main itself: strata's record (refs/strata/record) is
# pushed on its own too.
grep -q ' refs/heads/main$' || exit 0
rm -f someone-armed
env -u GIT_QUARANTINE_PATH git update-ref refs/heads/main refs/heads/someone
`
	if err := os.WriteFile(filepath.Join(bare, "hooks", "pre-receive"), []byte(hook), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bare, "someone-armed"), nil, 0o644); err != nil {
		e.t.Fatal(err)
	}
	return other.Git("rev-parse", "HEAD")
}

// clone clones the fleet repository's remote into a new work tree, as
// another engineer's (or runner's) clone.
func (e *Env) clone(name string) *Repo {
	e.t.Helper()
	r := &Repo{Dir: filepath.Join(e.t.TempDir(), name), URL: e.Repo.URL, t: e.t, git: e.Repo.git}
	r.run(e.Git.Root, "clone", "-q", "-b", "main", filepath.Join(e.Git.Root, "fleet.git"), r.Dir)
	return r
}

// strataIn runs strata on the work tree of r, and fails the test unless it
// exits 0.
func (e *Env) strataIn(r *Repo, args ...string) Result {
	e.t.Helper()
	res := e.strata(context.Background(), nil, append([]string{"--root", r.Dir}, args...)...)
	if res.Code != 0 {
		e.t.Fatalf("strata %s: exit %d\n%s", strings.Join(args, " "), res.Code, res.Stderr)
	}
	return res
}
