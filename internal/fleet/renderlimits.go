package fleet

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/strata-fleet/strata/internal/values"
)

// RenderLimits is config.yaml's render.limits: what one target's render may
// take before it fails (package render enforces them):
//
//	render:
//	  limits:
//	    timePerTarget: 30s      # wall time of a target's two template passes
//	    timePerRun: 10m         # wall time of a run's templates, all targets; once one target is out of time, the run stops
//	    outputPerTarget: 64MiB  # its rendered text; also the largest string or list a template function may make
//	    memory: 4GiB            # strata's heap while targets render (all of them: it is one process)
//
// The defaults are far above what real fleets need (a target renders in
// milliseconds to a few hundred KB); they stop runaway templates, not big
// fleets.
type RenderLimits struct {
	TimePerTarget   time.Duration
	TimePerRun      time.Duration
	OutputPerTarget int64
	Memory          int64
	// Pos is where each limit is set, for the hint of an error that names
	// it (zero for a default).
	Pos map[string]values.Pos
}

// Default render limits.
const (
	DefaultTimePerTarget   = 30 * time.Second
	DefaultTimePerRun      = 10 * time.Minute
	DefaultOutputPerTarget = 64 << 20
	DefaultMemory          = 4 << 30
)

// DefaultRenderLimits are the limits of a fleet that sets none.
func DefaultRenderLimits() RenderLimits {
	return RenderLimits{TimePerTarget: DefaultTimePerTarget, TimePerRun: DefaultTimePerRun, OutputPerTarget: DefaultOutputPerTarget, Memory: DefaultMemory}
}

func parseRenderLimits(v *values.Value, path []string) (RenderLimits, error) {
	l := DefaultRenderLimits()
	if v == nil || v.Kind == values.Null {
		return l, nil
	}
	if v.Kind != values.Map {
		return l, values.TypeError(v, path, values.Map)
	}
	if err := knownKeys(v, path, "timePerTarget", "timePerRun", "outputPerTarget", "memory"); err != nil {
		return l, err
	}
	l.Pos = map[string]values.Pos{}
	for _, f := range []struct {
		key string
		dst *time.Duration
	}{{"timePerTarget", &l.TimePerTarget}, {"timePerRun", &l.TimePerRun}} {
		key, dst := f.key, f.dst
		t := v.Get(key)
		if t == nil {
			continue
		}
		d, err := parseDuration(t, append(path, key))
		if err != nil {
			return l, err
		}
		if d <= 0 {
			return l, &values.Error{Pos: t.Pos, Path: append(path, key), Msg: "expected a positive duration, got " + t.Text}
		}
		*dst, l.Pos[key] = d, t.Pos
	}
	if o := v.Get("outputPerTarget"); o != nil {
		n, err := parseSize(o, append(path, "outputPerTarget"))
		if err != nil {
			return l, err
		}
		l.OutputPerTarget, l.Pos["outputPerTarget"] = n, o.Pos
	}
	if m := v.Get("memory"); m != nil {
		n, err := parseSize(m, append(path, "memory"))
		if err != nil {
			return l, err
		}
		l.Memory, l.Pos["memory"] = n, m.Pos
	}
	return l, nil
}

// sizeUnits are the units a size may have.
var sizeUnits = []struct {
	suffix string
	n      int64
}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}}

// parseSize reads a positive size in bytes: 1048576, "512KiB", "16MiB", "1GiB".
func parseSize(v *values.Value, path []string) (int64, error) {
	text, mult := v.Text, int64(1)
	for _, u := range sizeUnits {
		if s, ok := strings.CutSuffix(text, u.suffix); ok && v.Kind == values.String {
			text, mult = strings.TrimSpace(s), u.n
			break
		}
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil || n <= 0 || (v.Kind != values.Int && v.Kind != values.String) || n > (1<<62)/mult {
		return 0, &values.Error{Pos: v.Pos, Path: path, Msg: fmt.Sprintf("expected a size, got %s", describe(v)),
			Hint: `a positive number of bytes, or one with a unit: "512KiB", "16MiB", "1GiB"`}
	}
	return n * mult, nil
}

// FormatSize prints a size as config.yaml would write it.
func FormatSize(n int64) string {
	for _, u := range sizeUnits {
		if n >= u.n && n%u.n == 0 && u.n > 1 {
			return strconv.FormatInt(n/u.n, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}
