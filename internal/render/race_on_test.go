//go:build race

package render

// raceEnabled: the race detector's shadow memory inflates a process's
// resident size, so a test of the memory limit cannot read it.
const raceEnabled = true
