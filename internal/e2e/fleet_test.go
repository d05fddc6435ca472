//go:build linux

package e2e

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/strata-fleet/strata/internal/testing/testenv"
)

// What the example fleet (testdata/fleet) deploys, for the expectations of
// the scenarios.

// hubRegion is the region of the hub's target, which its spoke-info
// ApplicationSet names in what it deploys.
const hubRegion = "us-east1"

// tierOf is the demo chart's tier at a target: gold at eu-west1 of
// int-sector-1 (an override), standard elsewhere.
func tierOf(target string) string {
	if target == "integration/int-sector-1/eu-west1" {
		return "gold"
	}
	return "standard"
}

// expectApps are the Applications the fleet makes (by appKey): on the hub,
// the hub's root Application and its demo; per spoke, the root Application
// the hub's root ApplicationSet makes, its demo (from the spoke's rendered/
// directory) and its info (from the hub's spoke-info ApplicationSet); on a
// spoke that runs its own Argo CD, its root Application and its demo.
func expectApps(e *Env) []string {
	apps := []string{"root", appName(e.Hub.Target, "hub-demo")}
	for _, s := range e.Spokes {
		if s.OwnArgoCD {
			apps = append(apps, appKey(s.Name, "root"), appKey(s.Name, appName(s.Target, "demo")))
			continue
		}
		apps = append(apps, s.Name+"-root", s.Name+"-info", appName(s.Target, "demo"))
	}
	slices.Sort(apps)
	return apps
}

// appName is the name the built-in chart gives the Application of an item
// in the example fleet (render.namePrefix): <sector>-<region>-<item>.
func appName(target, item string) string {
	p := strings.Split(target, "/")
	return p[1] + "-" + p[2] + "-" + item
}

// expectState is what the clusters hold when each spoke's demo shows the
// version in versions.
func expectState(e *Env, versions map[string]string) State {
	st := State{
		HubName + "/hub-demo/demo": {
			"cluster": HubName, "environment": env(e.Hub.Target), "region": region(e.Hub.Target),
			"version": "hub", "tier": "hub",
		},
	}
	for _, s := range e.Spokes {
		v, ok := versions[s.Name]
		if !ok {
			e.t.Fatalf("no version expected for %s", s.Name)
		}
		st[s.Name+"/demo/demo"] = map[string]string{
			"cluster": s.Name, "environment": env(s.Target), "region": region(s.Target),
			"version": v, "tier": tierOf(s.Target),
		}
		if s.OwnArgoCD {
			continue // the hub's spoke-info is for its own spokes
		}
		st[s.Name+"/strata-info/info"] = map[string]string{
			"cluster": s.Name, "environment": env(s.Target), "region": region(s.Target),
			"version": "managed from " + hubRegion, "tier": "info",
		}
	}
	return st
}

func env(target string) string    { return strings.Split(target, "/")[0] }
func region(target string) string { return strings.Split(target, "/")[2] }

// allAt returns versions with every spoke at v.
func allAt(e *Env, v string) map[string]string {
	m := map[string]string{}
	for _, s := range e.Spokes {
		m[s.Name] = v
	}
	return m
}

// deploy renders and validates the fleet, commits it and bootstraps the hub
// and every spoke: it returns the commit.
func deploy(t *testing.T, e *Env) string {
	t.Helper()
	e.MustStrata("render")
	e.MustStrata("validate")
	head := e.Commit("the example fleet, rendered")
	r := e.Bootstrap(HubName)
	if !strings.Contains(r.Stdout, "(distributed model)") {
		t.Errorf("strata bootstrap %s: want the distributed model, got\n%s", HubName, r.Stdout)
	}
	for _, s := range e.Spokes {
		r := e.Bootstrap(s.Name)
		if s.OwnArgoCD {
			if !strings.Contains(r.Stdout, "(distributed model)") {
				t.Errorf("strata bootstrap %s: want the distributed model, got\n%s", s.Name, r.Stdout)
			}
			continue
		}
		if !strings.Contains(r.Stdout, "(central model) goes to "+HubName) {
			t.Errorf("strata bootstrap %s: want the central model, applied to %s, got\n%s", s.Name, HubName, r.Stdout)
		}
	}
	return head
}

// renderedTargets returns the target directories (rendered/<type>/<path>)
// under which files changed between two commits.
func renderedTargets(e *Env, from, to string) []string {
	var out []string
	for _, f := range e.Repo.Changed(from, to, "rendered") {
		p := strings.Split(f, "/")
		if len(p) < 5 {
			out = append(out, f)
			continue
		}
		dir := strings.Join(p[:5], "/")
		if !slices.Contains(out, dir) {
			out = append(out, dir)
		}
	}
	slices.Sort(out)
	return out
}

// TestBuildScriptVersions checks that the versions the tests expect are the
// ones hack/build-argocd.sh builds, and that the CRDs testenv installs are
// of the same Argo CD release.
func TestBuildScriptVersions(t *testing.T) {
	data, err := os.ReadFile("../../" + BuildScript)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"ARGOCD_VERSION": ArgoCDVersion, "HELM_VERSION": HelmVersion} {
		m := regexp.MustCompile(`(?m)^` + name + `=(\S+)$`).FindSubmatch(data)
		if m == nil {
			t.Errorf("%s sets no %s", BuildScript, name)
		} else if string(m[1]) != want {
			t.Errorf("%s builds %s=%s, the tests expect %s", BuildScript, name, m[1], want)
		}
	}
	if testenv.ArgoCDVersion != ArgoCDVersion {
		t.Errorf("testenv installs the CRDs of Argo CD %s, the tests run %s", testenv.ArgoCDVersion, ArgoCDVersion)
	}
}
