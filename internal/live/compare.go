package live

import (
	"fmt"
	"io/fs"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/strata-fleet/strata/internal/fleet"

	"github.com/strata-fleet/strata/internal/hint"
)

// Drift is what diff --live says: per cell of the matrix, how the live
// Applications and ApplicationSets differ from the rendered ones, and what
// Argo CD reports out of sync or unhealthy in them.
type Drift struct {
	// ArgoCDs are the Argo CDs read; Error says why one could not be (its
	// objects are not compared).
	ArgoCDs []*Instance `json:"argocds"`
	// Compared is how many rendered objects were compared with a live one;
	// Differ how many of them differ in the fields strata renders,
	// OutOfSync how many Argo CD reports out of sync, Unhealthy how many
	// are neither healthy nor of unknown health.
	Compared  int `json:"compared"`
	Differ    int `json:"differ"`
	OutOfSync int `json:"outOfSync"`
	Unhealthy int `json:"unhealthy"`
	// Cells are the cells with something to say, in matrix order.
	Cells []CellDrift `json:"cells"`
	// Unmapped are the live objects nothing rendered accounts for;
	// Missing the rendered objects Argo CD lacks (in their cells too).
	Unmapped []Unmapped `json:"unmapped,omitempty"`
	Missing  []Expected `json:"missing,omitempty"`
}

// CellDrift is one cell's objects that differ.
type CellDrift struct {
	ClusterType string        `json:"clusterType"`
	Target      string        `json:"target"`
	Component   string        `json:"component"`
	State       State         `json:"state"`
	Objects     []ObjectDrift `json:"objects"`
}

// ObjectDrift is one rendered object and its live counterpart.
type ObjectDrift struct {
	Expected
	// State and Reason are the object's, as status --live shows them.
	State  State  `json:"state"`
	Reason string `json:"reason,omitempty"`
	// Missing: Argo CD has no such object.
	Missing bool `json:"missing,omitempty"`
	// Diff is a unified diff from the rendered object (its templates
	// rendered as Argo CD renders the cluster's root) to the live one, of
	// what strata renders: the name, the labels, annotations and
	// finalizers it renders, the spec. Error says why the rendered object
	// could not be had.
	Diff  string `json:"diff,omitempty"`
	Error string `json:"error,omitempty"`
	// Sync, Health and HealthMessage are Argo CD's; Resources the
	// resources it reports out of sync or not healthy.
	Sync          string     `json:"sync,omitempty"`
	Health        string     `json:"health,omitempty"`
	HealthMessage string     `json:"healthMessage,omitempty"`
	Resources     []Resource `json:"resources,omitempty"`
	// Generated are, for an ApplicationSet, the Applications it made that
	// are out of sync or unhealthy.
	Generated []GeneratedDrift `json:"generated,omitempty"`
}

// GeneratedDrift is an Application made by an ApplicationSet, out of sync
// or unhealthy.
type GeneratedDrift struct {
	Name          string     `json:"name"`
	Sync          string     `json:"sync,omitempty"`
	Health        string     `json:"health,omitempty"`
	HealthMessage string     `json:"healthMessage,omitempty"`
	Resources     []Resource `json:"resources,omitempty"`
}

// Differs reports whether anything differs: an object, a missing or
// unmapped one, or an Argo CD that could not be read (and so not compared).
func (d *Drift) Differs() bool {
	if d.Differ+d.OutOfSync > 0 || len(d.Missing)+len(d.Unmapped) > 0 {
		return true
	}
	for _, in := range d.ArgoCDs {
		if in.Error != "" {
			return true
		}
	}
	return false
}

// Compare explains rep's drift: every rendered object of rep's cells that
// match accepts (nil: all) is compared with its live counterpart.
// The rendered objects are read from fsys (the fleet repository) and their
// templates rendered as Argo CD renders the cluster's root Application:
// with the root's helm.valuesObject when it is live, else with the values
// strata's bootstrap gives it. rep must have been read with Options.Specs.
func Compare(fsys fs.FS, f *fleet.Fleet, rep *Report, match func(Cell) bool) *Drift {
	d := &Drift{ArgoCDs: rep.ArgoCDs, Cells: []CellDrift{}, Unmapped: rep.Unmapped}
	r := &renderedObjects{fsys: fsys, f: f, roots: map[string]*Root{}, byCluster: map[string]renderedSet{}}
	for i := range rep.Roots {
		r.roots[rep.Roots[i].Cluster] = &rep.Roots[i]
	}
	for _, c := range rep.Cells {
		if match != nil && !match(c) {
			continue
		}
		cd := CellDrift{ClusterType: c.ClusterType, Target: c.Target, Component: c.Component, State: c.State}
		for _, st := range c.Apps {
			if st.State == Unreachable {
				continue // its Argo CD is reported once
			}
			o := d.object(r, st)
			if o.Missing {
				d.Missing = append(d.Missing, st.Expected)
			}
			if o.Missing || o.Diff != "" || o.Error != "" || o.Sync == "OutOfSync" || unhealthy(o.Health) ||
				len(o.Resources) > 0 || len(o.Generated) > 0 {
				cd.Objects = append(cd.Objects, o)
			}
		}
		if len(cd.Objects) > 0 {
			d.Cells = append(d.Cells, cd)
		}
	}
	return d
}

// object compares one rendered object with its live counterpart and
// counts it.
func (d *Drift) object(r *renderedObjects, st AppState) ObjectDrift {
	o := ObjectDrift{Expected: st.Expected, State: st.State, Reason: st.Reason}
	var meta Meta
	var spec map[string]any
	switch {
	case st.Live != nil:
		a := st.Live
		meta, spec = a.Meta, a.Spec
		o.Sync, o.Health, o.HealthMessage, o.Resources = a.Sync, a.Health, a.HealthMessage, a.Resources
	case st.AppSet != nil:
		meta, spec = st.AppSet.Meta, st.AppSet.Spec
		for _, g := range st.Generated {
			a := g.App
			if a.Sync == "OutOfSync" || unhealthy(a.Health) || len(a.Resources) > 0 {
				o.Generated = append(o.Generated, GeneratedDrift{Name: a.Name, Sync: a.Sync, Health: a.Health, HealthMessage: a.HealthMessage, Resources: a.Resources})
			}
		}
	default:
		o.Missing = true
		return o
	}
	d.Compared++
	if o.Sync == "OutOfSync" || len(o.Generated) > 0 && anyOutOfSync(o.Generated) {
		d.OutOfSync++
	}
	if unhealthy(o.Health) {
		d.Unhealthy++
	}
	want, err := r.object(st.Expected)
	if err != nil {
		o.Error = err.Error()
		return o
	}
	o.Diff = specDiff(st.Expected, want, st.Name, meta, spec)
	if o.Diff != "" {
		d.Differ++
	}
	return o
}

func unhealthy(h string) bool { return h != "" && h != "Healthy" && h != "Unknown" }

func anyOutOfSync(gs []GeneratedDrift) bool {
	for _, g := range gs {
		if g.Sync == "OutOfSync" {
			return true
		}
	}
	return false
}

// renderedSet is a cluster's rendered objects by name, as Argo CD renders
// them, or why they could not be had.
type renderedSet struct {
	objs map[string]*unstructured.Unstructured
	err  error
}

// renderedObjects renders the rendered/ directory of each cluster once.
type renderedObjects struct {
	fsys      fs.FS
	f         *fleet.Fleet
	roots     map[string]*Root
	byCluster map[string]renderedSet
}

// object is the rendered object e, as Argo CD renders it for e's cluster.
func (r *renderedObjects) object(e Expected) (*unstructured.Unstructured, error) {
	set, ok := r.byCluster[e.Cluster]
	if !ok {
		set.objs, set.err = r.render(e.Cluster)
		r.byCluster[e.Cluster] = set
	}
	if set.err != nil {
		return nil, set.err
	}
	o := set.objs[e.Name]
	if o == nil {
		render := hint.Strata("render")
		return nil, hint.Errorf("%s renders no %s named %s for cluster %s (run %s?)", e.File, e.Kind, e.Name, e.Cluster, render)
	}
	return o, nil
}

// render renders the rendered/ directory of cluster name as Argo CD does.
func (r *renderedObjects) render(name string) (map[string]*unstructured.Unstructured, error) {
	c := r.f.Cluster(name)
	if c == nil {
		return nil, fmt.Errorf("no cluster %s in the inventory", name)
	}
	vals := clusterValues(r.f, c)
	if root := r.roots[name]; root != nil && root.App != nil {
		if v, ok, _ := unstructured.NestedMap(root.App.Spec, "source", "helm", "valuesObject"); ok {
			vals = v
		}
	}
	return argoRender(r.fsys, r.f, c, vals)
}

// specDiff is the unified diff from the rendered object want to the live
// one (name, meta, spec), of what strata renders; "" when they agree.
func specDiff(e Expected, want *unstructured.Unstructured, name string, meta Meta, spec map[string]any) string {
	rmeta := Meta{Labels: want.GetLabels(), Annotations: want.GetAnnotations(), Finalizers: want.GetFinalizers()}
	rspec, _ := want.Object["spec"].(map[string]any)
	before := marshalDoc(want.GetName(), rmeta, rspec)
	after := marshalDoc(name, meta.rendered(rmeta), spec)
	if string(before) == string(after) {
		return ""
	}
	return unifiedDiff(e.File, fmt.Sprintf("live/%s/%s/%s", e.ArgoCD, e.Kind, name), before, after)
}

// rendered keeps of m what strata renders in r: the labels and
// annotations of its keys, its finalizers.
func (m Meta) rendered(r Meta) Meta {
	var out Meta
	for k := range r.Labels {
		if v, ok := m.Labels[k]; ok {
			if out.Labels == nil {
				out.Labels = map[string]string{}
			}
			out.Labels[k] = v
		}
	}
	for k := range r.Annotations {
		if v, ok := m.Annotations[k]; ok {
			if out.Annotations == nil {
				out.Annotations = map[string]string{}
			}
			out.Annotations[k] = v
		}
	}
	for _, f := range m.Finalizers {
		for _, w := range r.Finalizers {
			if f == w {
				out.Finalizers = append(out.Finalizers, f)
			}
		}
	}
	return out
}

// Summary is one line: "2 of 40 live objects differ from rendered/ (1 out
// of sync, 1 unhealthy); 1 missing, 1 unmapped; 1 Argo CD unreachable".
func (d *Drift) Summary() string {
	s := fmt.Sprintf("%d of %s differ from rendered/", d.Differ, count(d.Compared, "live object"))
	if d.Differ == 0 {
		s = fmt.Sprintf("no live object differs from rendered/ (%d compared)", d.Compared)
	}
	var argo []string
	if d.OutOfSync > 0 {
		argo = append(argo, fmt.Sprintf("%d out of sync", d.OutOfSync))
	}
	if d.Unhealthy > 0 {
		argo = append(argo, fmt.Sprintf("%d unhealthy", d.Unhealthy))
	}
	if len(argo) > 0 {
		s += "; Argo CD reports " + strings.Join(argo, ", ")
	}
	if n := len(d.Missing); n > 0 {
		s += fmt.Sprintf("; %d missing", n)
	}
	if n := len(d.Unmapped); n > 0 {
		s += fmt.Sprintf("; %d unmapped", n)
	}
	down := 0
	for _, in := range d.ArgoCDs {
		if in.Error != "" {
			down++
		}
	}
	if down > 0 {
		s += fmt.Sprintf("; %s unreachable", count(down, "Argo CD"))
	}
	return s
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
