package livecache

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestRefreshPick: which roots the waits of a process ask a refresh of.
func TestRefreshPick(t *testing.T) {
	const every = 20 * time.Second
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	root, other := AppKey{"w1", "root"}, AppKey{"w2", "root"}
	tests := []struct {
		name string
		// before is an ask of root before the wait set's mark (an
		// earlier push's); after one after it, at t0.
		before, after bool
		queued        bool
		annotated     bool
		now           time.Time
		keys          []AppKey
		want          []AppKey
		// stalled are the asks reported as stalled, their age.
		stalled map[AppKey]time.Duration
	}{
		{name: "never asked", now: t0, keys: []AppKey{root, other}, want: []AppKey{root, other}},
		{name: "asked twice in one look", now: t0, keys: []AppKey{root, root}, want: []AppKey{root}},
		{name: "no root", now: t0, keys: []AppKey{{"w1", ""}}},
		{name: "asked for an earlier push", before: true, now: t0, keys: []AppKey{root}, want: []AppKey{root}},
		{name: "asked since the push, by another wait", after: true, now: t0.Add(time.Second), keys: []AppKey{root}},
		{name: "asked since the push, taken, a while ago", after: true, now: t0.Add(every), keys: []AppKey{root}, want: []AppKey{root}},
		{name: "asked since the push, not taken yet", after: true, annotated: true, now: t0.Add(2 * every), keys: []AppKey{root}},
		{name: "asked since the push, not taken for three ticks: stalled, not asked again", after: true, annotated: true,
			now: t0.Add(3 * every), keys: []AppKey{root, other}, want: []AppKey{other}, stalled: map[AppKey]time.Duration{root: 3 * every}},
		{name: "asked since the push, taken, long ago", after: true, now: t0.Add(5 * every), keys: []AppKey{root}, want: []AppKey{root}},
		{name: "queued, not sent yet", queued: true, now: t0, keys: []AppKey{root}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rf := newRefresher()
			if tt.before {
				_, _ = rf.pick([]AppKey{root}, 0, t0.Add(-time.Minute), every, nil)
			}
			mark := rf.seq
			if tt.after {
				_, _ = rf.pick([]AppKey{root}, mark, t0, every, nil)
			}
			if tt.queued {
				rf.queued[root] = true
			}
			annotated := func(k AppKey) bool { return tt.annotated && k == root }
			got, stalled := rf.pick(tt.keys, mark, tt.now, every, annotated)
			if !slices.Equal(got, tt.want) {
				t.Errorf("asked %v, want %v", got, tt.want)
			}
			gotStalled := map[AppKey]time.Duration{}
			for _, s := range stalled {
				gotStalled[s.Key] = s.Age
			}
			if d := cmp.Diff(tt.stalled, gotStalled, cmpopts.EquateEmpty(), cmp.AllowUnexported(AppKey{})); d != "" {
				t.Errorf("stalled (-want +got):\n%s", d)
			}
		})
	}
}
