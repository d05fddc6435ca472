//go:build linux

package e2e

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/strata-fleet/strata/internal/live"
	"github.com/strata-fleet/strata/internal/status"
)

// What strata status --live says of the fleet, read back as data.

// Kubeconfig writes a kubeconfig with a context per cluster that runs Argo
// CD, named like the cluster (where status --live looks first), and
// returns its path. The clusters named in down are given the address of a
// port nothing listens on (127.0.0.1:1): their Argo CD cannot be reached.
func (e *Env) Kubeconfig(down ...string) string {
	e.t.Helper()
	cfg := clientcmdapi.NewConfig()
	for _, c := range e.ArgoCDs() {
		server := c.API.URL
		if slices.Contains(down, c.Name) {
			// Port 1 (tcpmux): nothing listens there, and no test's
			// server, given a free port, can take it in the meantime.
			server = "https://127.0.0.1:1"
		}
		cfg.Clusters[c.Name] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: c.API.CAData}
		cfg.AuthInfos[c.Name] = &clientcmdapi.AuthInfo{Token: c.API.Token}
		cfg.Contexts[c.Name] = &clientcmdapi.Context{Cluster: c.Name, AuthInfo: c.Name}
	}
	path := filepath.Join(e.t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		e.t.Fatal(err)
	}
	return path
}

// LiveStatus is one run of strata status --live -o json, with the
// Application objects as they were before and after it.
type LiveStatus struct {
	*status.Status
	// Apps are the objects it shows, the cells' and the roots', by appKey
	// (an ApplicationSet's Applications under their own names).
	Apps map[string]ShownApp
	// Objects are the Application objects of the Argo CDs, by appKey.
	Objects map[string]App
}

// ShownApp is one Application as status --live shows it: its object, and
// the state of the rendered object it belongs to (for a root, "").
type ShownApp struct {
	State  live.State
	Reason string
	// Of is the rendered object: the Application itself, or the
	// ApplicationSet that made it.
	Of  live.AppState
	App *live.App
}

// StatusLive runs strata status --live -o json with kubeconfig until the
// Application objects are the same before and after it (Argo CD may change
// them meanwhile), and returns what it said.
func (e *Env) StatusLive(kubeconfig string) *LiveStatus {
	e.t.Helper()
	began := time.Now()
	for {
		before, err := e.Apps()
		if err != nil {
			e.t.Fatal(err)
		}
		r := e.Strata("status", "--live", "-o", "json", "--kubeconfig", kubeconfig)
		if r.Code != 0 {
			e.t.Fatalf("strata status --live: exit %d\n%s", r.Code, r.Stderr)
		}
		after, err := e.Apps()
		if err != nil {
			e.t.Fatal(err)
		}
		if reflect.DeepEqual(before, after) {
			var s status.Status
			if err := json.Unmarshal([]byte(r.Stdout), &s); err != nil {
				e.t.Fatalf("strata status --live -o json: %v", err)
			}
			return &LiveStatus{Status: &s, Apps: shownApps(&s), Objects: after}
		}
		if time.Since(began) > ConvergeTimeout {
			e.t.Fatalf("the Applications kept changing while strata status --live read them, for %s", ConvergeTimeout)
		}
	}
}

// shownApps collects the Applications status --live shows.
func shownApps(s *status.Status) map[string]ShownApp {
	out := map[string]ShownApp{}
	add := func(c live.Cell) {
		for _, st := range c.Apps {
			if st.Live != nil {
				out[appKey(st.ArgoCD, st.Live.Name)] = ShownApp{State: st.State, Reason: st.Reason, Of: st, App: st.Live}
			}
			for _, g := range st.Generated {
				out[appKey(st.ArgoCD, g.App.Name)] = ShownApp{State: g.State, Reason: g.Reason, Of: st, App: g.App}
			}
		}
	}
	for _, ct := range s.ClusterTypes {
		for _, t := range ct.Targets {
			for _, c := range t.Cells {
				if c.Live != nil {
					add(*c.Live)
				}
			}
		}
	}
	if s.Live != nil {
		for _, c := range s.Live.Other {
			add(c)
		}
		for _, r := range s.Live.Roots {
			if r.App != nil {
				out[appKey(r.ArgoCD, r.App.Name)] = ShownApp{App: r.App}
			}
		}
	}
	return out
}

// Unreachable returns the Argo CDs status --live could not read, with the
// reason.
func (l *LiveStatus) Unreachable() map[string]string {
	out := map[string]string{}
	for _, in := range l.Live.ArgoCDs {
		if in.Error != "" {
			out[in.Cluster] = in.Error
		}
	}
	return out
}

// Mismatches says where what status --live shows differs from the objects
// of the Argo CDs it reached: an object it does not show or shows
// differently, or one it shows that is not there.
func (l *LiveStatus) Mismatches() []string {
	var out []string
	down := l.Unreachable()
	for _, key := range sortedKeys(l.Objects) {
		o := l.Objects[key]
		if _, ok := down[o.ArgoCD]; ok {
			continue
		}
		s, ok := l.Apps[key]
		if !ok {
			out = append(out, "not shown: "+o.String())
			continue
		}
		got := [5]string{s.App.Sync, s.App.Health, s.App.Revision, s.App.Phase, s.App.Message}
		want := [5]string{o.Sync, o.Health, o.Revision, o.Phase, o.Message}
		if got != want {
			out = append(out, "shown as (sync, health, revision, phase, message) "+strings.Join(got[:], ", ")+"; the object says "+strings.Join(want[:], ", "))
		}
	}
	for _, key := range sortedKeys(l.Apps) {
		if _, ok := l.Objects[key]; !ok {
			out = append(out, "shown but not on its Argo CD: "+key)
		}
	}
	return out
}
