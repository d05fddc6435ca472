// Package inflight is the read model of the rollouts in flight: which
// patches are in flight ([Patches]) or settle a last step that removed
// their files ([Settling]), and where each stands ([Flights]: its
// location and wave, its last step, what its next step waits for, what
// holds it, its last failure), derived from the fleet, its Git history,
// delivery's record and, when asked, the live state; nothing is stored.
//
// status and the web UI read it; the rollout engine (package rollout)
// builds on it for the same facts (a patch's locations, its files'
// pathspec, a revert's commit), so that both read them alike.
package inflight
