package output

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func testState() *State {
	return &State{Version: stateVersion, Targets: map[string]TargetState{
		"rendered/mc/int/s1/r1": {Fingerprint: [32]byte{1, 2, 3}, Files: []Stamp{
			{Name: "Chart.yaml", Size: 120, MTime: 1763900000123456789, Ino: 1 << 40, CTime: 1763900000987654321},
			{Name: "templates/app.yaml", Size: 4096, MTime: -5},
		}, Dirs: []Stamp{{Name: ".", Size: 80, MTime: 17639, Ino: 12, CTime: 17640}, {Name: "templates", Ino: 13}}},
		"rendered/mc/int/s1/r2": {Fingerprint: [32]byte{31: 9}, Files: []Stamp{
			{Name: "Chart.yaml", Size: 0, MTime: 0},
		}, Dirs: []Stamp{}, Beside: []Stamp{{Name: "rendered/mc/int/s1/r2-values.yaml", Size: 90, MTime: 17641, Ino: 14, CTime: 17642}}},
		"rendered/mc/int/s1/r3": {Files: []Stamp{}, Dirs: []Stamp{}},
		"rendered/mc/int/s1/r4": {Files: []Stamp{ // differences that overflow
			{Name: "a", MTime: math.MaxInt64, Ino: math.MaxUint64, CTime: math.MinInt64},
			{Name: "b", MTime: math.MinInt64, Ino: 0, CTime: math.MaxInt64},
		}, Dirs: []Stamp{}},
	}}
}

func TestStateEncodingRoundTrips(t *testing.T) {
	want := testState()
	got, err := decodeState(want.encode())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoded state (-want +got):\n%s", diff)
	}
}

// A state cut short or with a byte changed anywhere is rejected or decodes
// to some state, never panics; a run then renders what it must.
func TestDecodeStateRejectsDamage(t *testing.T) {
	data := testState().encode()
	for i := range data {
		if _, err := decodeState(data[:i]); err == nil {
			t.Errorf("state cut to %d of %d bytes decoded without error", i, len(data))
		}
		damaged := append([]byte(nil), data...)
		damaged[i] ^= 0xff
		decodeState(damaged)
	}
	if _, err := decodeState(append(data, 0)); err == nil {
		t.Error("state with a trailing byte decoded without error")
	}
}
