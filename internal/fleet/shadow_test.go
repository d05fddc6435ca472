package fleet_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/fleet"
)

// shadowFleet: patch-001 at production sets the chart version and the
// replicas; production/eu's override sets the version again, so the patch's
// version never reaches production/eu; patch-002 at production/us replaces
// the whole helm mapping above the replicas with null. patch-003 sets the
// version at production too: a conflict of one level, not a shadow.
var shadowFleet = fstest.MapFS{
	"config/config.yaml": {Data: []byte(`dimensions: [environments, regions]
sequence:
  environments:
    - name: staging
      regions: [eu]
    - name: production
      regions: [eu, us]
cluster_types: [mc]
`)},
	"config/mc/defaults.yaml": {Data: []byte("applications:\n  default:\n    project: default\n")},
	"config/mc/app/values.yaml": {Data: []byte(`applications:
  app:
    source:
      targetRevision: "1.0"
      helm:
        replicas: 1
`)},
	"config/mc/app/production/patch-001.yaml": {Data: []byte(`metadata:
  description: app 2.0
applications:
  app:
    source:
      targetRevision: "2.0"
      helm:
        replicas: 2
`)},
	"config/mc/app/production/patch-003.yaml": {Data: []byte(`applications:
  app:
    source:
      targetRevision: "3.0"
`)},
	"config/mc/app/production/eu/override.yaml": {Data: []byte(`applications:
  app:
    source:
      targetRevision: "1.5"
`)},
	"config/mc/app/production/us/patch-002.yaml": {Data: []byte(`applications:
  app:
    source:
      helm: null
`)},
}

func TestShadows(t *testing.T) {
	f, err := fleet.Load(shadowFleet)
	if err != nil {
		t.Fatal(err)
	}
	ct := f.ClusterType("mc")
	c := ct.Components[0]
	got := map[string][]string{}
	for _, n := range f.Targets {
		shadows, err := c.Shadows(n)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range shadows {
			got[n.ID()] = append(got[n.ID()], s.PatchName()+" "+strings.Join(s.Field, ".")+" by "+s.At.String())
		}
	}
	want := map[string][]string{
		"production/eu": {
			"patch-001 applications.app.source.targetRevision by config/mc/app/production/eu/override.yaml:4:23",
			"patch-003 applications.app.source.targetRevision by config/mc/app/production/eu/override.yaml:4:23",
		},
		"production/us": {"patch-001 applications.app.source.helm.replicas by config/mc/app/production/us/patch-002.yaml:4:13"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("shadows per target (-want +got):\n%s", d)
	}
}
