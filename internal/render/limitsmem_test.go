package render

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"

	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"

	"github.com/strata-fleet/strata/internal/fleet"
)

// memoryLimitTest is the memory limit of TestMemoryLimitBoundsTheProcess:
// small, so that a template that runs away cannot hurt the machine.
const memoryLimitTest = 256 << 20

// runawayTemplates grow memory by template functions that each make less
// than the size limit (which is raised out of the way): a string doubled,
// lists grown, tpl recursing through include; and ranges that write text
// and call no function, whose growth is the engine's output buffer
// (rangetext.go counts it: 496 MiB peak under 256 MiB without).
var runawayTemplates = map[string]string{
	"cat doubles a string":    `{{ $s := "xxxxxxxxxxxxxxxx" }}{{ range until 60 }}{{ $s = cat $s $s }}{{ end }}{{ len $s }}`,
	"print doubles a string":  `{{ $s := "xxxxxxxxxxxxxxxx" }}{{ range until 60 }}{{ $s = print $s $s }}{{ end }}{{ len $s }}`,
	"printf doubles a string": `{{ $s := "xxxxxxxxxxxxxxxx" }}{{ range until 60 }}{{ $s = printf "%s%s" $s $s }}{{ end }}{{ len $s }}`,
	"upper copies a string":   `{{ $s := repeat 1000000 "x" }}{{ $l := list }}{{ range until 100000 }}{{ $l = append $l (upper $s) }}{{ end }}{{ len $l }}`,
	"tpl recursion":           `{{ define "r" }}{{ tpl "{{ include \"r\" . }}{{ include \"r\" . }}" . }}{{ end }}{{ include "r" . }}`,
	"a list of lists":         `{{ $l := list }}{{ range until 100000 }}{{ $l = append $l (until 100000) }}{{ end }}{{ len $l }}`,
	"a range writes text":     `{{ range 100000000 }}xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx{{ end }}`,
	"nested ranges write text": `{{ range until 20000 }}{{- range until 20000 }}
  key: xxxxxxxxxxxxxxxxxxxxxxxx{{ end }}{{ end }}`,
}

// The memory limit bounds the process: each runaway template fails over
// render.limits.memory, and the peak RSS of the process that rendered it
// (a child, its VmHWM as the kernel counts it) stays under 1.5 times the
// limit.
// Without the counting of what functions make, the heap watch saw the
// doubling only after an allocation that doubled the heap, and the render
// ran on after it failed: 533 MB under a 256 MiB limit for "cat doubles a
// string".
func TestMemoryLimitBoundsTheProcess(t *testing.T) {
	if name := os.Getenv("STRATA_RUNAWAY"); name != "" {
		runawayChild(name)
		return
	}
	if testing.Short() {
		t.Skip("renders in child processes")
	}
	if raceEnabled {
		t.Skip("the race detector's shadow memory is in the peak RSS: run it without -race")
	}
	for name := range runawayTemplates {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestMemoryLimitBoundsTheProcess$")
			cmd.Env = append(os.Environ(), "STRATA_RUNAWAY="+name)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			// The child's own peak (its rusage would count the test
			// process's memory at the fork).
			m := regexp.MustCompile(`(?m)^VmHWM:\s+(\d+) kB$`).FindSubmatch(out)
			if m == nil {
				t.Skipf("no VmHWM in the child's /proc/self/status:\n%s", out)
			}
			kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
			rss := kb << 10
			t.Logf("%s; peak RSS %s", out, byteCount(rss))
			if rss > memoryLimitTest*3/2 {
				t.Errorf("peak RSS %s, over 1.5 times the limit (%s)", byteCount(rss), byteCount(memoryLimitTest))
			}
		})
	}
}

// runawayChild renders the template name under the test limits and exits:
// 0 when the render failed over the memory limit.
func runawayChild(name string) {
	c := &chart.Chart{
		Metadata:  &chart.Metadata{APIVersion: "v2", Name: "runaway", Version: "1.0.0"},
		Templates: []*common.File{{Name: "templates/t.yaml", Data: []byte(runawayTemplates[name])}},
	}
	limits := fleet.RenderLimits{Memory: memoryLimitTest, OutputPerTarget: 1 << 40, TimePerTarget: 1 << 62}
	_, err := RenderChart(c, map[string]any{}, limits, "chart")
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != "memory" {
		fmt.Printf("want an error over the memory limit, got %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("%v\n", err)
	if status, err := os.ReadFile("/proc/self/status"); err == nil {
		os.Stdout.Write(status)
	}
	os.Exit(0)
}
