package live

import (
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/strata-fleet/strata/internal/argorender"
	"github.com/strata-fleet/strata/internal/fleet"
)

// Report is the live state of a fleet, joined to its rendered output.
type Report struct {
	// ArgoCDs are the Argo CDs read, with the reason of those that could
	// not be.
	ArgoCDs []*Instance `json:"argocds"`
	// Roots are, per cluster of the inventory, the root Application that
	// deploys its rendered/ directory.
	Roots []Root `json:"roots"`
	// Cells are the matrix's cells that clusters run, by cluster type,
	// target (rollout order) and component (name order; "" last for what
	// the templates chart makes from no single component).
	Cells []Cell `json:"cells"`
	// Unmapped are the live Applications and ApplicationSets that nothing
	// rendered accounts for.
	Unmapped []Unmapped `json:"unmapped,omitempty"`
	// Missing are the rendered objects with no live counterpart (also in
	// their cells, as missing or waiting).
	Missing []Expected `json:"missing,omitempty"`
}

// Root is the root Application of a cluster.
type Root struct {
	Cluster string `json:"cluster"`
	ArgoCD  string `json:"argocd"`
	// Name is "" when its Argo CD has no Application that renders the
	// cluster's rendered/ directory for it.
	Name string `json:"name,omitempty"`
	// Revision is the revision it last deployed (see rootRevision).
	Revision string `json:"revision,omitempty"`
	App      *App   `json:"app,omitempty"`
	// Revisions are the revisions the cluster's target runs by name, as
	// the fleet pins them: the root's, then config.yaml's revisions:
	// (none when it names none).
	Revisions []fleet.RevisionByName `json:"revisions,omitempty"`
}

// Cell is one component at one target, over the clusters that run it.
type Cell struct {
	ClusterType string `json:"clusterType"`
	Target      string `json:"target"`
	Component   string `json:"component"`
	// State is the worst of its Applications'.
	State State      `json:"state"`
	Apps  []AppState `json:"apps"`
}

// AppState is one rendered object for one cluster and what Argo CD says of
// it.
type AppState struct {
	Expected
	State State `json:"state"`
	// Reason explains the state: Argo CD's message, the resources out of
	// sync, why its Argo CD is unreachable.
	Reason string `json:"reason,omitempty"`
	// Commit is the commit that last changed its rendered file ("" when
	// never committed); Contains whether the revision the cluster's root
	// Application deployed (RootRevision) contains it, nil when unknown.
	Commit       string `json:"commit,omitempty"`
	Uncommitted  bool   `json:"uncommitted,omitempty"`
	RootRevision string `json:"rootRevision,omitempty"`
	Contains     *bool  `json:"contains,omitempty"`
	// Live is the object as Argo CD has it; nil when missing. For an
	// ApplicationSet, Generated are the Applications it made.
	Live      *App     `json:"live,omitempty"`
	AppSet    *AppSet  `json:"appSet,omitempty"`
	Generated []AppGen `json:"generated,omitempty"`
}

// AppGen is an Application an ApplicationSet made, and its state.
type AppGen struct {
	App    *App   `json:"app"`
	State  State  `json:"state"`
	Reason string `json:"reason,omitempty"`
}

// Unmapped is a live object that nothing rendered accounts for.
type Unmapped struct {
	ArgoCD string `json:"argocd"`
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	Owner  string `json:"owner,omitempty"`
}

// index is one Argo CD's objects by name, and which of them are accounted
// for.
type index struct {
	in       *Instance
	apps     map[string]*App
	appSets  map[string]*AppSet
	children map[string][]*App // by ApplicationSet
	used     map[string]bool   // "Application/name", "ApplicationSet/name"
}

func newIndex(in *Instance) *index {
	x := &index{in: in, apps: map[string]*App{}, appSets: map[string]*AppSet{}, children: map[string][]*App{}, used: map[string]bool{}}
	for i := range in.Applications {
		a := &in.Applications[i]
		x.apps[a.Name] = a
		if a.Owner != "" {
			x.children[a.Owner] = append(x.children[a.Owner], a)
		}
	}
	for i := range in.ApplicationSets {
		x.appSets[in.ApplicationSets[i].Name] = &in.ApplicationSets[i]
	}
	return x
}

// Join joins what the Argo CDs hold to what the rendered output expects and
// to the repository's history.
func Join(f *fleet.Fleet, expected []Expected, instances []*Instance, h *History) *Report {
	r := &Report{ArgoCDs: instances, Roots: []Root{}, Cells: []Cell{}}
	idx := map[string]*index{}
	for _, in := range instances {
		idx[in.Cluster] = newIndex(in)
	}
	roots := map[string]*Root{}
	for _, c := range f.Clusters {
		root := findRoot(f, c, idx[ArgoCDOf(c)])
		r.Roots = append(r.Roots, root)
	}
	for i := range r.Roots {
		roots[r.Roots[i].Cluster] = &r.Roots[i]
	}
	cells := map[[3]string]*Cell{}
	for _, e := range expected {
		st := appStateOf(e, idx[e.ArgoCD], roots[e.Cluster], h)
		if st.Live == nil && st.AppSet == nil && st.State != Unreachable {
			r.Missing = append(r.Missing, e)
		}
		k := [3]string{e.ClusterType, e.Target, e.Component}
		cell := cells[k]
		if cell == nil {
			cell = &Cell{ClusterType: e.ClusterType, Target: e.Target, Component: e.Component}
			cells[k] = cell
		}
		cell.Apps = append(cell.Apps, st)
		cell.State = worse(cell.State, st.State)
	}
	for k := range cellOrder(f) {
		if c := cells[k]; c != nil {
			r.Cells = append(r.Cells, *c)
		}
	}
	for _, in := range instances {
		r.Unmapped = append(r.Unmapped, idx[in.Cluster].unmapped()...)
	}
	return r
}

// cellOrder yields the possible cells in matrix order. It yields them
// rather than list them: a rollout's wait joins a few clusters at each
// change, and a list of the whole fleet's cells at each join (101,000 at
// 1,000 targets x 100 components) was most of what its waits allocated.
func cellOrder(f *fleet.Fleet) iter.Seq[[3]string] {
	return func(yield func([3]string) bool) {
		for _, ct := range f.ClusterTypes {
			for _, n := range ct.Targets {
				t := targetName(f, ct, n)
				for _, c := range ct.Components {
					if !yield([3]string{ct.Name, t, c.Name}) {
						return
					}
				}
				if !yield([3]string{ct.Name, t, ""}) {
					return
				}
			}
		}
	}
}

// findRoot finds the root Application of cluster c: the Application of its
// Argo CD whose source renders c's rendered/ directory for c (strata's
// bootstrap names the cluster in helm.valuesObject.cluster.name; a root
// without it is c's when it has the name config.yaml's roots.name gives).
func findRoot(f *fleet.Fleet, c *fleet.Cluster, x *index) Root {
	root := Root{Cluster: c.Name, ArgoCD: ArgoCDOf(c), Revisions: f.RevisionsByName(c.Type, c.Target)}
	if x == nil || x.in.Error != "" {
		return root
	}
	path := RootPath(f.Config, c)
	name := f.Config.RootName(c)
	var found *App
	for i := range x.in.Applications {
		a := &x.in.Applications[i]
		if a.Path != path {
			continue
		}
		if a.ClusterValue == c.Name || (a.ClusterValue == "" && a.Name == name) {
			found = a
			break
		}
	}
	if found == nil {
		return root
	}
	x.used["Application/"+found.Name] = true
	root.Name, root.App, root.Revision = found.Name, found, rootRevision(found)
	return root
}

// rootRevision is the revision a root Application last deployed: the one it
// is synced to, else that of its last successful sync.
func rootRevision(a *App) string {
	if a.Sync == "Synced" && a.Revision != "" {
		return a.Revision
	}
	return a.Deployed
}

// appStateOf joins one expected object to its live counterpart.
func appStateOf(e Expected, x *index, root *Root, h *History) AppState {
	st := AppState{Expected: e}
	st.Commit, st.Uncommitted = h.LastChange(e.File)
	if x == nil {
		st.State, st.Reason = Unreachable, "no Argo CD runs on "+e.ArgoCD
		return st
	}
	if x.in.Error != "" {
		st.State, st.Reason = Unreachable, x.in.Error
		return st
	}
	switch e.Kind {
	case "ApplicationSet":
		if s := x.appSets[e.Name]; s != nil {
			st.AppSet = s
			x.used["ApplicationSet/"+e.Name] = true
		}
	default:
		if a := x.apps[e.Name]; a != nil {
			st.Live = a
			x.used["Application/"+e.Name] = true
		}
	}
	if st.Uncommitted || st.Commit == "" {
		st.State, st.Reason = NotCommitted, "its rendered file differs from HEAD"
		if st.Commit == "" && !st.Uncommitted {
			st.Reason = "its rendered file is not in the repository"
		}
		return st
	}
	contains, reason := rootContains(root, st.Commit, h)
	if contains == nil {
		st.State, st.Reason = Unknown, reason
		return st
	}
	st.RootRevision, st.Contains = root.Revision, contains
	if !*contains && failedPhase(root.App.Phase) {
		st.State, st.Reason = Failed, fmt.Sprintf("root Application %s: sync %s: %s", root.Name, root.App.Phase, root.App.Message)
		return st
	}
	switch {
	case st.AppSet != nil:
		st.State, st.Reason = st.appSetState(x, *contains)
	case st.Live != nil:
		st.State, st.Reason = appState(st.Live, *contains)
	case *contains:
		st.State, st.Reason = Missing, fmt.Sprintf("root Application %s deployed %.12s, which contains %.12s, but Argo CD has no %s %s", root.Name, root.Revision, st.Commit, e.Kind, e.Name)
	default:
		st.State, st.Reason = Waiting, "Argo CD has not synced the change yet"
	}
	return st
}

// rootContains says whether the cluster's root deployed commit.
func rootContains(root *Root, commit string, h *History) (*bool, string) {
	if root == nil || root.App == nil {
		return nil, "no root Application renders " + "the cluster's directory on its Argo CD"
	}
	if root.Revision == "" {
		no := false
		return &no, ""
	}
	yes, err := h.Contains(commit, root.Revision)
	if err != nil {
		return nil, fmt.Sprintf("root Application %s: %v", root.Name, err)
	}
	return &yes, ""
}

// appSetState is an ApplicationSet's state: failed on an error condition,
// else the worst of the Applications it made.
func (st *AppState) appSetState(x *index, contains bool) (State, string) {
	if !contains {
		return Waiting, "Argo CD has not synced the change yet"
	}
	if st.AppSet.Error != "" {
		return Failed, "ApplicationSet: " + st.AppSet.Error
	}
	state, reason := Healthy, ""
	for _, a := range x.children[st.Name] {
		s, why := appState(a, true)
		st.Generated = append(st.Generated, AppGen{App: a, State: s, Reason: why})
		x.used["Application/"+a.Name] = true
		if s.Rank() > state.Rank() {
			state, reason = s, a.Name+": "+why
		}
	}
	return state, reason
}

// unmapped lists the objects of an Argo CD that nothing accounted for, but
// strata's own root ApplicationSets (bootstrap's root-<cluster type>); the
// roots they make for clusters of the inventory are accounted for.
func (x *index) unmapped() []Unmapped {
	var out []Unmapped
	if x.in.Error != "" {
		return nil
	}
	for _, s := range x.in.ApplicationSets {
		if !x.used["ApplicationSet/"+s.Name] && !isRootAppSet(s.Name) {
			out = append(out, Unmapped{ArgoCD: x.in.Cluster, Kind: "ApplicationSet", Name: s.Name})
		}
	}
	for _, a := range x.in.Applications {
		if x.used["Application/"+a.Name] || x.used["ApplicationSet/"+a.Owner] {
			continue
		}
		out = append(out, Unmapped{ArgoCD: x.in.Cluster, Kind: "Application", Name: a.Name, Owner: a.Owner})
	}
	slices.SortFunc(out, func(a, b Unmapped) int {
		if a.Kind != b.Kind {
			return strings.Compare(a.Kind, b.Kind)
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

func isRootAppSet(name string) bool {
	return strings.HasPrefix(name, argorender.Release+"-")
}
