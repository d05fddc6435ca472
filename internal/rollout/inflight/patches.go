package inflight

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/strata-fleet/strata/internal/alert"
	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/live"
)

// Patches lists the patches of the fleet not folded into values.yaml yet,
// <type>/<component>/<patch>, in order.
func Patches(f *fleet.Fleet) []string {
	var out []string
	for _, ct := range f.ClusterTypes {
		for _, c := range ct.Components {
			for _, lv := range c.Levels {
				for _, p := range lv.Patches {
					name := strings.TrimSuffix(p.Path[strings.LastIndexByte(p.Path, '/')+1:], ".yaml")
					if id := ct.Name + "/" + c.Name + "/" + name; !slices.Contains(out, id) {
						out = append(out, id)
					}
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// Locations are the nodes where the patch of the cluster type's component
// is, in rollout order.
func Locations(f *fleet.Fleet, clusterType, component, patch string) []string {
	ct := f.ClusterType(clusterType)
	if ct == nil {
		return nil
	}
	comp := ct.Component(component)
	if comp == nil {
		return nil
	}
	name := strings.TrimSuffix(patch, ".yaml") + ".yaml"
	var out []string
	f.Config.Root.Walk(func(n *fleet.Node) {
		if lv := comp.Levels[n.ID()]; lv != nil {
			for _, p := range lv.Patches {
				if p.Path[strings.LastIndexByte(p.Path, '/')+1:] == name {
					out = append(out, n.ID())
				}
			}
		}
	})
	return out
}

// Under reports whether node id is one of nodes or under one of them.
func Under(id string, nodes []string) bool {
	for _, n := range nodes {
		if id == n || strings.HasPrefix(id, n+"/") {
			return true
		}
	}
	return false
}

// HealthySince is when an object became synced and healthy as Argo CD
// says: the later of its last operation's end and its health's last
// transition (for an ApplicationSet, over its Applications); zero when
// Argo CD says neither.
func HealthySince(st live.AppState) time.Time {
	apps := []*live.App{st.Live}
	for _, g := range st.Generated {
		apps = append(apps, g.App)
	}
	var t time.Time
	for _, a := range apps {
		if a == nil {
			continue
		}
		for _, at := range []time.Time{a.FinishedAt, a.HealthSince} {
			if at.After(t) {
				t = at
			}
		}
	}
	return t
}

// ReadCondition reads one stopWhen condition: the alerts that make it
// hold (none: it does not).
func ReadCondition(ctx context.Context, c fleet.StopCondition) ([]alert.Alert, error) {
	cl := alert.Client{Timeout: c.Timeout}
	if c.Prometheus != nil {
		return cl.Query(ctx, c.Prometheus.URL, c.Prometheus.Query)
	}
	return cl.Firing(ctx, c.Alertmanager.URL, c.Alertmanager.Matchers)
}
