package importer_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/strata-fleet/strata/internal/importer"
	"github.com/strata-fleet/strata/internal/testing/goldenfile"
)

// TestAppOfApps imports a repository shaped as Thakurvaibhav/k8s's
// ADR-006: an app-of-apps chart with a values file per cluster, each
// cluster's root (bootstrap/<cluster>.yaml) rendering it at its own
// revision. The differential test is importFleet's: the objects strata
// renders equal those Helm's engine renders from the chart for each root's
// release and value files.
func TestAppOfApps(t *testing.T) {
	res := importFleet(t, "app-of-apps", os.DirFS("testdata/app-of-apps/platform"), importer.Options{Dir: "charts/app-of-apps"})
	goldenfile.Check(t, "testdata/app-of-apps/platform.golden", golden(res), *update)
	var ids []string
	for _, tg := range res.Source.Targets {
		ids = append(ids, tg.ID())
	}
	if want := []string{"dev/dev-01", "ops/ops-01", "prod/prod-01"}; !slices.Equal(ids, want) {
		t.Errorf("targets %v, want %v", ids, want)
	}
	cfg := string(res.Files["config/config.yaml"])
	if !strings.Contains(cfg, "namePrefix: '{{ .Values.cluster.cluster }}-'") {
		t.Errorf("config.yaml names no prefix:\n%s", cfg)
	}
	roots := 0
	for _, f := range res.Findings {
		if strings.HasPrefix(f.Reason, "the cluster's root: it renders charts/app-of-apps at ") {
			roots++
		}
	}
	if roots != 3 {
		t.Errorf("%d findings about the roots, want 3:\n%s", roots, golden(&importer.Result{Findings: res.Findings}))
	}
}

// TestAppOfAppsWithoutRoots imports the chart alone: each values file is a
// cluster, rendered as a release named after it.
func TestAppOfAppsWithoutRoots(t *testing.T) {
	res := importFleet(t, "app-of-apps", os.DirFS("testdata/app-of-apps/platform/charts"), importer.Options{Dir: "app-of-apps"})
	if len(res.Source.Targets) != 3 {
		t.Fatalf("%d targets, want 3", len(res.Source.Targets))
	}
	if f := res.Findings[0]; !strings.HasPrefix(f.Reason, "no root Application reads the chart") {
		t.Errorf("first finding %q", f)
	}
	v := string(res.Files["config/app-of-apps/podinfo/values.yaml"])
	if !strings.Contains(v, "message: '{{ .Values.cluster.cluster }} on {{ .Values.cluster.cluster }}'") {
		t.Errorf("podinfo's message is not its release's (the cluster's name) on the cluster:\n%s", v)
	}
}
