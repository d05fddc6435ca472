package livecache

import (
	"sync"
	"time"
)

// Refreshes (docs/rollout.md says why and how): a normal refresh of each
// root that has not deployed a step, right after the push and every
// RefreshEvery while it has not, shared by the waits of a process and sent
// a few at once beside them. An ask the controller does not take is not
// sent again (the same annotation changes nothing): each wait reports it
// once (KindStalled) after refreshStalled RefreshEvery.

// refreshSenders is how many refreshes a process sends at once; the
// client's rate limit (live's connect) paces them.
const refreshSenders = 4

// refreshStalled is how many RefreshEvery an ask made since a step's push
// may stay on its root, not taken, before the waits report it.
const refreshStalled = 3

// RefreshAnnotation asks Argo CD for a refresh.
const RefreshAnnotation = "argocd.argoproj.io/refresh"

// AppKey names an Application: its Argo CD's cluster and its name.
type AppKey struct{ ArgoCD, Name string }

// refresher is what the Cache keeps of the refreshes asked.
type refresher struct {
	mu sync.Mutex
	// seq counts the asks; last is each Application's latest.
	seq  uint64
	last map[AppKey]asked
	// queue is what the senders have to send, queued its keys.
	queue  []refreshReq
	queued map[AppKey]bool
	wake   chan struct{}
	start  sync.Once
}

type asked struct {
	seq uint64
	at  time.Time
}

// StalledAsk is an ask the controller has not taken for a while: the
// Application, which ask (its seq) and for how long.
type StalledAsk struct {
	Key AppKey
	Seq uint64
	Age time.Duration
}

type refreshReq struct {
	key AppKey
	log func(format string, args ...any)
}

func newRefresher() *refresher {
	return &refresher{last: map[AppKey]asked{}, queued: map[AppKey]bool{}, wake: make(chan struct{}, refreshSenders)}
}

// pick chooses and records the keys to ask a refresh of now: those not
// queued, unless asked after mark (the push) less than every ago or not
// taken yet (annotated); those not taken for refreshStalled every are
// stalled. rf.mu is held.
func (rf *refresher) pick(keys []AppKey, mark uint64, now time.Time, every time.Duration,
	annotated func(AppKey) bool) (ask []AppKey, stalled []StalledAsk) {
	for _, k := range keys {
		if k.Name == "" || rf.queued[k] {
			continue
		}
		if l, ok := rf.last[k]; ok && l.seq > mark {
			age := now.Sub(l.at)
			if age < every {
				continue
			}
			if annotated(k) {
				if age >= refreshStalled*every {
					stalled = append(stalled, StalledAsk{Key: k, Seq: l.seq, Age: age})
				}
				continue
			}
		}
		rf.seq++
		rf.last[k] = asked{seq: rf.seq, at: now}
		ask = append(ask, k)
	}
	return ask, stalled
}
