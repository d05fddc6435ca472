package rollout

import (
	"slices"
	"testing"
	"time"
)

// TestRefreshPick: which roots the waits of a process ask a refresh of.
func TestRefreshPick(t *testing.T) {
	const every = 20 * time.Second
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	root, other := appKey{"w1", "root"}, appKey{"w2", "root"}
	tests := []struct {
		name string
		// before is an ask of root before the wait set's mark (an
		// earlier push's); after one after it, at t0.
		before, after bool
		queued        bool
		annotated     bool
		now           time.Time
		keys          []appKey
		want          []appKey
	}{
		{name: "never asked", now: t0, keys: []appKey{root, other}, want: []appKey{root, other}},
		{name: "asked twice in one look", now: t0, keys: []appKey{root, root}, want: []appKey{root}},
		{name: "no root", now: t0, keys: []appKey{{"w1", ""}}},
		{name: "asked for an earlier push", before: true, now: t0, keys: []appKey{root}, want: []appKey{root}},
		{name: "asked since the push, by another wait", after: true, now: t0.Add(time.Second), keys: []appKey{root}},
		{name: "asked since the push, taken, a while ago", after: true, now: t0.Add(every), keys: []appKey{root}, want: []appKey{root}},
		{name: "asked since the push, not taken yet", after: true, annotated: true, now: t0.Add(3 * every), keys: []appKey{root}},
		{name: "queued, not sent yet", queued: true, now: t0, keys: []appKey{root}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rf := newRefresher()
			if tt.before {
				rf.pick([]appKey{root}, 0, t0.Add(-time.Minute), every, nil)
			}
			mark := rf.seq
			if tt.after {
				rf.pick([]appKey{root}, mark, t0, every, nil)
			}
			if tt.queued {
				rf.queued[root] = true
			}
			annotated := func(k appKey) bool { return tt.annotated && k == root }
			if got := rf.pick(tt.keys, mark, tt.now, every, annotated); !slices.Equal(got, tt.want) {
				t.Errorf("asked %v, want %v", got, tt.want)
			}
		})
	}
}
