package render

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/strata-fleet/strata/internal/fleet"
)

// testBudget is a render budget with the default limits.
func testBudget() *budget { return newBudget(fleet.RenderLimits{}) }

// Each runaway template of issue 11 fails its target quickly, over the
// limit it runs into, naming the template or value that ran away. None of
// these would end in reasonable time (or memory) without the limits.
func TestRunawayTemplatesFailOverALimit(t *testing.T) {
	deep := strings.Repeat("{a: ", 3000) + "1" + strings.Repeat("}", 3000)
	// Time is no part of the size cases: a busy machine may take its time.
	const limits = "render: {limits: {timePerTarget: 10m, outputPerTarget: 1MiB}}\n"
	const config = "dimensions: [environments]\nsequence: {environments: [{name: dev}]}\ncluster_types: [{name: mc}]\n"
	chart := func(tmpl string) map[string]string {
		return map[string]string{
			"argocd-apps/Chart.yaml":          "apiVersion: v2\nname: apps\nversion: 1.0.0\n",
			"argocd-apps/templates/apps.yaml": tmpl,
		}
	}
	tests := []struct {
		name  string
		files map[string]string
		limit string
		want  []string
	}{{
		name:  "until in a value",
		files: map[string]string{"config/mc/app/values.yaml": "applications:\n  app:\n    destination: {name: in-cluster}\n    project: '{{ range until 300000000 }}{{ end }}'\n"},
		limit: "outputPerTarget",
		want:  []string{"applications.app.project: until 300000000 makes a list of 300000000 numbers", "config/mc/app/values.yaml:4:14", "(1MiB)"},
	}, {
		name:  "until in the chart",
		files: chart("{{ range until 300000000 }}{{ end }}\n"),
		limit: "outputPerTarget",
		want:  []string{"until 300000000 makes", "at argocd-apps/templates/apps.yaml:1:9: until 300000000"},
	}, {
		name: "a deeply nested value through toYaml",
		files: map[string]string{
			"config/config.yaml":        config + strings.Replace(limits, "50ms", "1m", 1),
			"config/mc/app/values.yaml": "applications:\n  app:\n    destination: {name: in-cluster}\n    source: {helm: {valuesObject: " + deep + "}}\n",
		},
		limit: "outputPerTarget",
		want:  []string{"toYaml makes more than 1.0 MiB", "at (built-in chart) templates/applications.yaml:"},
	}, {
		name:  "repeat",
		files: chart(`{{ repeat 100000000 "xxxxxxxx" }}` + "\n"),
		limit: "outputPerTarget",
		want:  []string{"repeat 100000000 makes 762.9 MiB"},
	}, {
		name:  "nindent",
		files: chart(`{{ "a\nb\nc\nd" | nindent 1000000 }}` + "\n"),
		limit: "outputPerTarget",
		want:  []string{"nindent 1000000 makes 3.8 MiB"},
	}, {
		// The loop would run for half a minute, and its only function is
		// the inner until: the time is up there, whenever that is, once
		// the render is past the built-in chart and the loop's start.
		name: "a loop that calls functions, out of time",
		files: map[string]string{
			"config/config.yaml":              config + "render: {limits: {timePerTarget: 1s}}\n",
			"argocd-apps/Chart.yaml":          "apiVersion: v2\nname: apps\nversion: 1.0.0\n",
			"argocd-apps/templates/apps.yaml": "{{ $m := until 10 }}{{ range until 100000 }}{{ range $m }}{{ range until 1000 }}{{ end }}{{ end }}{{ end }}\n",
		},
		limit: "timePerTarget",
		want:  []string{"the templates ran out of time, over render.limits.timePerTarget (1s)", "at argocd-apps/templates/apps.yaml:1:"},
	}, {
		name: "a loop that writes text and calls no function, over the memory limit",
		files: map[string]string{
			"config/config.yaml":              config + "render: {limits: {timePerTarget: 10m, outputPerTarget: 1GiB, memory: 128MiB}}\n",
			"argocd-apps/Chart.yaml":          "apiVersion: v2\nname: apps\nversion: 1.0.0\n",
			"argocd-apps/templates/apps.yaml": "{{ $l := until 600 }}{{ range $l }}{{ range $l }}" + strings.Repeat("x", 1000) + "{{ end }}{{ end }}\n",
		},
		limit: "memory",
		want:  []string{"the text of a range would take", "over render.limits.memory (128MiB)"},
	}, {
		// A range whose body is not empty counts each iteration
		// (rangetext.go): the time is up there.
		name: "a loop that writes nothing and calls no function, out of time",
		files: map[string]string{
			"config/config.yaml":              config + "render: {limits: {timePerTarget: 400ms, memory: 64GiB}}\n",
			"argocd-apps/Chart.yaml":          "apiVersion: v2\nname: apps\nversion: 1.0.0\n",
			"argocd-apps/templates/apps.yaml": "{{ $l := until 1000 }}{{ range $l }}{{ range $l }}{{ range $l }}{{ end }}{{ end }}{{ end }}\n",
		},
		limit: "timePerTarget",
		want:  []string{"the templates ran out of time, over render.limits.timePerTarget (400ms)", "at argocd-apps/templates/apps.yaml:1:"},
	}, {
		// A range whose body is empty has no call to count it: it is
		// abandoned. The loop runs for about 1.5s on a 2-core machine, and
		// the limit leaves a busy machine time to start it: it must be in
		// the loop when its time is up. The memory limit is out of reach
		// of what the other cases' abandoned renders still hold.
		name: "a loop that calls no function, abandoned",
		files: map[string]string{
			"config/config.yaml":              config + "render: {limits: {timePerTarget: 400ms, memory: 64GiB}}\n",
			"argocd-apps/Chart.yaml":          "apiVersion: v2\nname: apps\nversion: 1.0.0\n",
			"argocd-apps/templates/apps.yaml": "{{ range 30000000 }}{{ end }}\n",
		},
		limit: "timePerTarget",
		want:  []string{"ran out of time in a loop that calls no template function"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// A render out of time reaches its next function whenever a
			// busy machine lets it: only the loop that calls none is
			// abandoned, and it runs for seconds.
			defer func(g time.Duration) { grace = g }(grace)
			grace = time.Minute
			if strings.Contains(tc.name, "abandoned") {
				grace = time.Millisecond
			}
			files := map[string]string{
				"config/config.yaml":        config + limits,
				"config/mc/defaults.yaml":   "applications:\n  default:\n    project: default\n",
				"config/mc/app/values.yaml": "applications:\n  app:\n    destination: {name: in-cluster}\n",
			}
			for k, v := range tc.files {
				files[k] = v
			}
			fsys := fstest.MapFS{}
			for name, data := range files {
				fsys[name] = &fstest.MapFile{Data: []byte(data)}
			}
			r, err := Load(fsys)
			if err != nil {
				t.Fatal(err)
			}
			_, err = r.RenderAll(r.Targets(), nil)
			var le *LimitError
			if !errors.As(err, &le) || le.Limit != tc.limit {
				t.Fatalf("got %v, want a LimitError over %s", err, tc.limit)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not say %q:\n%v", w, err)
				}
			}
			if !strings.Contains(err.Error(), "rendering mc/dev: ") || !strings.Contains(err.Error(), "config.yaml:4:") {
				t.Errorf("error does not name the target and where the limit is set:\n%v", err)
			}
		})
	}
}
