package render

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// runawayFleet is a fleet of three targets whose chart loops for ever,
// calling a function, under config.yaml's render.limits limits.
func runawayFleet(t *testing.T, limits string) *Renderer {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, data := range map[string]string{
		"config/config.yaml": "dimensions: [environments, regions]\n" +
			"sequence: {environments: [{name: dev, regions: [{name: a}, {name: b}, {name: c}]}]}\n" +
			"cluster_types: [{name: mc}]\nrender: {limits: " + limits + "}\n",
		"config/mc/defaults.yaml":         "applications:\n  default:\n    project: default\n",
		"config/mc/app/values.yaml":       "applications:\n  app:\n    destination: {name: in-cluster}\n",
		"argocd-apps/Chart.yaml":          "apiVersion: v2\nname: apps\nversion: 1.0.0\n",
		"argocd-apps/templates/apps.yaml": "{{ range until 100000 }}{{ range until 100000 }}{{ $x := upper \"a\" }}{{ end }}{{ end }}\n",
	} {
		fsys[name] = &fstest.MapFile{Data: []byte(data)}
	}
	r, err := Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Once a target is out of time, the run stops: the targets after it do not
// render (each would take the limit again), and the error names the one.
func TestRunStopsAtTheFirstTargetOutOfTime(t *testing.T) {
	defer func(g time.Duration) { grace = g }(grace)
	grace = time.Minute // the loop calls a function: it stops there
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	r := runawayFleet(t, "{timePerTarget: 300ms}")
	_, err := r.RenderAll(r.Targets(), nil)
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != "timePerTarget" {
		t.Fatalf("got %v, want a LimitError over timePerTarget", err)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "rendering mc/dev/a: the templates ran out of time") || strings.Contains(msg, "other target") {
		t.Errorf("want the first target out of time, alone:\n%v", err)
	}
}

// The run's time is a budget for all its targets: with a time per target
// out of reach, the run still ends when its own is up.
func TestRunTimeIsABudget(t *testing.T) {
	defer func(g time.Duration) { grace = g }(grace)
	grace = time.Minute
	r := runawayFleet(t, "{timePerTarget: 10m, timePerRun: 300ms}")
	_, err := r.RenderAll(r.Targets(), nil)
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != "timePerRun" {
		t.Fatalf("got %v, want a LimitError over timePerRun", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "the run ran out of time while this target rendered") || !strings.Contains(msg, "render.limits.timePerRun (300ms)") {
		t.Errorf("error:\n%v", err)
	}
}
