//go:build linux

package e2e

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// ConvergeTimeout bounds how long the fleet may take to reach an expected
// state after a commit: generous, as `go test ./...` may run other API
// server tests on the same two cores.
const ConvergeTimeout = 4 * time.Minute

// refreshEvery is how often Converge asks again for a hard refresh of the
// Applications that have not settled.
const refreshEvery = 15 * time.Second

// Namespaces whose ConfigMaps make up the observed state of a cluster: those
// the example fleet's charts deploy to (web: the delivery scenarios' second
// component; hypershift: the imported regional platform's chart).
var stateNamespaces = []string{"demo", "hub-demo", "strata-info", "web", "hypershift"}

// App is what the tests read of an Application.
type App struct {
	// ArgoCD is the cluster whose Argo CD holds it.
	ArgoCD string
	Name   string
	// TargetRevision is its source's; of an Application with several
	// sources, theirs in order, joined by commas (as Revision).
	TargetRevision string
	// Revision, Sync and Health are from its status; Phase and Message
	// from its last operation.
	Revision   string
	Sync       string
	Health     string
	Phase      string
	Message    string
	Conditions []string
}

func (a App) String() string {
	s := fmt.Sprintf("%s: target %s, %s at %.12s, %s", appKey(a.ArgoCD, a.Name), a.TargetRevision, a.Sync, a.Revision, a.Health)
	if a.Phase != "" {
		s += fmt.Sprintf(", last operation %s", a.Phase)
		if a.Phase != "Succeeded" && a.Message != "" {
			s += ": " + a.Message
		}
	}
	for _, c := range a.Conditions {
		s += "\n      condition " + c
	}
	return s
}

// appKey is how Apps names an Application: by its name on the hub's Argo
// CD, as <cluster>/<name> on a spoke's own.
func appKey(argocd, name string) string {
	if argocd == HubName {
		return name
	}
	return argocd + "/" + name
}

// Apps returns the Applications of every Argo CD, by appKey.
func (e *Env) Apps() (map[string]App, error) {
	apps := map[string]App{}
	for _, c := range e.ArgoCDs() {
		if err := e.listApps(c, apps); err != nil {
			return nil, fmt.Errorf("the Applications on %s: %w", c.Name, err)
		}
	}
	return apps, nil
}

func (e *Env) listApps(c *Cluster, apps map[string]App) error {
	ctx, cancel := e.ctx()
	defer cancel()
	list, err := c.Dyn.Resource(appGVR).Namespace(Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, u := range list.Items {
		str := func(fields ...string) string { s, _, _ := unstructured.NestedString(u.Object, fields...); return s }
		a := App{
			ArgoCD:         c.Name,
			Name:           u.GetName(),
			TargetRevision: str("spec", "source", "targetRevision"),
			Revision:       str("status", "sync", "revision"),
			Sync:           str("status", "sync", "status"),
			Health:         str("status", "health", "status"),
			Phase:          str("status", "operationState", "phase"),
			Message:        str("status", "operationState", "message"),
		}
		if srcs, _, _ := unstructured.NestedSlice(u.Object, "spec", "sources"); len(srcs) > 0 {
			var want []string
			for _, src := range srcs {
				m, _ := src.(map[string]any)
				rev, _ := m["targetRevision"].(string)
				want = append(want, rev)
			}
			got, _, _ := unstructured.NestedStringSlice(u.Object, "status", "sync", "revisions")
			a.TargetRevision, a.Revision = strings.Join(want, ","), strings.Join(got, ",")
		}
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, c := range conds {
			if m, ok := c.(map[string]any); ok {
				a.Conditions = append(a.Conditions, fmt.Sprintf("%v: %v", m["type"], m["message"]))
			}
		}
		apps[appKey(c.Name, a.Name)] = a
	}
	return nil
}

// RefreshAll asks every Argo CD for a hard refresh of each of its
// Applications (the argocd.argoproj.io/refresh annotation): they compare
// with Git again at once, without their caches.
func (e *Env) RefreshAll() {
	apps, err := e.Apps()
	if err != nil {
		e.t.Logf("listing the Applications to refresh them: %v", err)
		return
	}
	for key := range apps {
		e.refresh(key)
	}
	e.refreshAppSets()
}

// refreshAppSets asks the ApplicationSet controller to generate every
// ApplicationSet again at once (the application-set-refresh annotation):
// the roots' git generators read the branch again, which they otherwise do
// every three minutes.
func (e *Env) refreshAppSets() {
	for _, c := range e.ArgoCDs() {
		e.refreshAppSetsOf(c)
	}
}

func (e *Env) refreshAppSetsOf(c *Cluster) {
	ctx, cancel := e.ctx()
	defer cancel()
	list, err := c.Dyn.Resource(appSetGVR).Namespace(Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		e.t.Logf("listing the ApplicationSets of %s to refresh them: %v", c.Name, err)
		return
	}
	patch := []byte(`{"metadata":{"annotations":{"argocd.argoproj.io/application-set-refresh":"true"}}}`)
	for _, u := range list.Items {
		_, err := c.Dyn.Resource(appSetGVR).Namespace(Namespace).Patch(ctx, u.GetName(), types.MergePatchType, patch, metav1.PatchOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			e.t.Logf("refreshing ApplicationSet %s on %s: %v", u.GetName(), c.Name, err)
		}
	}
}

// refresh asks for a hard refresh of the Application of appKey key.
func (e *Env) refresh(key string) {
	c, name := e.Hub, key
	if argocd, n, ok := strings.Cut(key, "/"); ok {
		c, name = e.clusterNamed(argocd), n
	}
	ctx, cancel := e.ctx()
	defer cancel()
	patch := []byte(`{"metadata":{"annotations":{"argocd.argoproj.io/refresh":"hard"}}}`)
	_, err := c.Dyn.Resource(appGVR).Namespace(Namespace).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		e.t.Logf("refreshing Application %s: %v", key, err)
	}
}

// State is what the fleet's charts deployed: the data of every ConfigMap in
// the namespaces of stateNamespaces, by "<cluster>/<namespace>/<name>".
type State map[string]map[string]string

// ReadState reads the State of every cluster.
func (e *Env) ReadState() (State, error) {
	st := State{}
	for _, c := range e.Clusters() {
		for _, ns := range stateNamespaces {
			ctx, cancel := e.ctx()
			list, err := c.Kube.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
			cancel()
			if err != nil {
				return nil, fmt.Errorf("reading the ConfigMaps of %s in %s: %w", c.Name, ns, err)
			}
			for _, cm := range list.Items {
				if cm.Name == "kube-root-ca.crt" {
					continue
				}
				st[c.Name+"/"+ns+"/"+cm.Name] = cm.Data
			}
		}
	}
	return st, nil
}

// Expect is a state of the fleet that Converge waits for.
type Expect struct {
	// Head is the commit the branch main is at: Applications whose
	// targetRevision is main (or HEAD) must be synced to it, the others to
	// the commit their targetRevision names.
	Head string
	// Apps are the names of the Applications that must exist on the hub,
	// and no others.
	Apps []string
	// State is what must be deployed in the clusters, and nothing else.
	State State
}

// Converge waits until every Application named in x exists, no other does,
// each is Synced and Healthy at the commit its targetRevision resolves to,
// and the clusters hold exactly x.State: it looks again each time an
// Application or a ConfigMap changes, and asks the Applications that have
// not settled for a hard refresh every refreshEvery. It fails the test
// after ConvergeTimeout, showing the Applications and the difference.
func (e *Env) Converge(x Expect) time.Duration {
	e.t.Helper()
	began := time.Now()
	var (
		problems []string
		apps     map[string]App
		st       State
	)
	e.waitFor(func() bool {
		problems, apps, st = e.converged(x)
		return len(problems) == 0
	}, func() {
		for key, a := range apps {
			if e.unsettled(x, a) {
				e.refresh(key)
			}
		}
		e.refreshAppSets()
	}, func() {
		e.t.Fatalf("the fleet did not converge at %.12s within %s:\n  %s\nApplications:\n%s",
			x.Head, ConvergeTimeout, strings.Join(problems, "\n  "), describeApps(apps))
	})
	d := time.Since(began)
	e.t.Logf("converged at %.12s in %s: %d Applications synced and healthy, %d ConfigMaps as expected",
		x.Head, d.Round(100*time.Millisecond), len(apps), len(st))
	return d
}

// converged says how the fleet differs from x, now.
func (e *Env) converged(x Expect) (problems []string, apps map[string]App, st State) {
	apps, err := e.Apps()
	if err != nil {
		return []string{err.Error()}, apps, nil
	}
	if problems = e.appProblems(x, apps); len(problems) > 0 {
		return problems, apps, nil
	}
	if st, err = e.ReadState(); err != nil {
		return []string{err.Error()}, apps, st
	}
	if d := cmp.Diff(x.State, st); d != "" {
		return []string{"the clusters' ConfigMaps differ (-want +got):\n" + d}, apps, st
	}
	return nil, apps, st
}

// appProblems says how apps differ from what x expects.
func (e *Env) appProblems(x Expect, apps map[string]App) []string {
	var out []string
	for _, name := range x.Apps {
		if _, ok := apps[name]; !ok {
			out = append(out, "no Application "+name+" yet")
		}
	}
	for _, name := range sortedKeys(apps) {
		a := apps[name]
		if !slices.Contains(x.Apps, name) {
			out = append(out, "unexpected Application "+name)
			continue
		}
		if e.unsettled(x, a) {
			out = append(out, "Application "+a.String())
		}
	}
	return out
}

func (e *Env) unsettled(x Expect, a App) bool {
	return a.Sync != "Synced" || a.Health != "Healthy" || a.Phase == "Running" || a.Revision != resolve(x, a.TargetRevision)
}

// resolve returns the commit a targetRevision names: main and HEAD are
// x.Head, anything else is a commit hash; the revisions of several sources
// (joined by commas) each.
func resolve(x Expect, rev string) string {
	if revs := strings.Split(rev, ","); len(revs) > 1 {
		for i, r := range revs {
			revs[i] = resolve(x, r)
		}
		return strings.Join(revs, ",")
	}
	switch rev {
	case "", "HEAD", "main":
		return x.Head
	}
	return rev
}

// WaitApp waits until the Application of appKey key satisfies ok, looking
// again each time an Application changes and asking it for a hard refresh
// every refreshEvery, or fails the test after ConvergeTimeout with what it
// is.
func (e *Env) WaitApp(key, what string, ok func(App) bool) App {
	e.t.Helper()
	var (
		apps  map[string]App
		found bool
		err   error
	)
	e.waitFor(func() bool {
		apps, err = e.Apps()
		a, f := apps[key]
		found = f
		return err == nil && found && ok(a)
	}, func() {
		if found {
			e.refresh(key)
		}
	}, func() {
		e.t.Fatalf("Application %s: not %s within %s (%v)\nApplications:\n%s", key, what, ConvergeTimeout, err, describeApps(apps))
	})
	return apps[key]
}

func describeApps(apps map[string]App) string {
	var b strings.Builder
	for _, name := range sortedKeys(apps) {
		fmt.Fprintf(&b, "    %s\n", apps[name])
	}
	return b.String()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TerminateOperation ends the running operation of the Application name, as
// `argocd app terminate-op` does (Argo CD's API server sets the phase of its
// operation to Terminating; the application controller stops it).
func (e *Env) TerminateOperation(name string) {
	e.t.Helper()
	ctx, cancel := e.ctx()
	defer cancel()
	patch := []byte(`{"status":{"operationState":{"phase":"Terminating"}}}`)
	if _, err := e.Dyn.Resource(appGVR).Namespace(Namespace).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		e.t.Fatalf("terminating the operation of Application %s: %v", name, err)
	}
}
