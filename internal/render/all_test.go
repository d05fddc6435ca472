package render

import (
	"runtime"
	"sync"
	"testing"
	"weak"
)

// TestRenderStreamKeepsNoOutput checks that RenderStream holds no rendered
// target once its sink has it: when the last output reaches the sink, the
// earlier ones can be collected, so that memory does not grow with the
// number of targets.
func TestRenderStreamKeepsNoOutput(t *testing.T) {
	f, c := smallBenchFleet(t)
	r := &Renderer{Fleet: f, Chart: c}
	targets := r.Targets()
	var (
		mu    sync.Mutex
		seen  []weak.Pointer[Output]
		alive = -1
	)
	err := r.RenderStream(targets, nil, func(_ int, o *Output) error {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, weak.Make(o))
		if len(seen) < len(targets) {
			return nil
		}
		runtime.GC()
		alive = 0
		for _, p := range seen {
			if p.Value() != nil {
				alive++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// This output, and one per other worker at most (still in its sink).
	if workers := runtime.GOMAXPROCS(0); alive < 0 || alive > workers {
		t.Errorf("%d of %d outputs still held when the last reached the sink; want at most %d", alive, len(targets), workers)
	}
}
