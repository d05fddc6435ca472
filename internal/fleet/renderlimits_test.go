package fleet

import (
	"strings"
	"testing"
	"time"

	"github.com/strata-fleet/strata/internal/values"
)

func TestRenderLimits(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       RenderLimits
		err        string
	}{
		{name: "defaults", yaml: "missingKeys: error", want: DefaultRenderLimits()},
		{name: "set", yaml: "limits: {timePerTarget: 2m, outputPerTarget: 16MiB}",
			want: RenderLimits{TimePerTarget: 2 * time.Minute, OutputPerTarget: 16 << 20, Memory: DefaultMemory}},
		{name: "bytes", yaml: "limits: {outputPerTarget: 1048576}", want: RenderLimits{TimePerTarget: DefaultTimePerTarget, OutputPerTarget: 1 << 20, Memory: DefaultMemory}},
		{name: "no unit for a time", yaml: "limits: {timePerTarget: 10}", err: "render.limits.timePerTarget: expected a duration"},
		{name: "zero time", yaml: "limits: {timePerTarget: 0s}", err: "expected a positive duration"},
		{name: "unknown unit", yaml: "limits: {outputPerTarget: 16MB}", err: "render.limits.outputPerTarget: expected a size"},
		{name: "negative size", yaml: "limits: {outputPerTarget: -1}", err: "expected a size"},
		{name: "memory", yaml: "limits: {memory: 1GiB}",
			want: RenderLimits{TimePerTarget: DefaultTimePerTarget, OutputPerTarget: DefaultOutputPerTarget, Memory: 1 << 30}},
		{name: "unknown key", yaml: "limits: {heap: 1GiB}", err: "heap"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := values.Decode("config.yaml", []byte(tc.yaml))
			if err != nil {
				t.Fatal(err)
			}
			rc, err := parseRender(v)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, want an error with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := rc.Limits
			if got.TimePerTarget != tc.want.TimePerTarget || got.OutputPerTarget != tc.want.OutputPerTarget || got.Memory != tc.want.Memory {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
	if got := FormatSize(64 << 20); got != "64MiB" {
		t.Errorf("FormatSize(64 MiB) = %s", got)
	}
}
