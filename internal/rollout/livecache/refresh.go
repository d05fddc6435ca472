package livecache

import (
	"sync"
	"time"
)

// Refreshes. Argo CD compares an Application with Git every
// timeout.reconciliation (3 minutes by default), at once when its spec
// changes, and when asked to (the argocd.argoproj.io/refresh annotation,
// which the application controller removes once done). The last two
// resolve the branch again (git ls-remote, not the repo-server's revision
// cache: the controller's CompareWithLatestForceResolve).
//
// A step's Applications change through their cluster's root, an
// Application of the cluster's rendered/ directory, whose spec does not
// change when the directory does: strata asks a refresh of each root that
// has not deployed the step yet, right after the push and every
// RefreshEvery while it has not; the Applications the root then changes
// are compared by Argo CD itself, their spec changed. The refresh is a
// normal one: a hard one also skips the manifest cache, which is keyed by
// the commit, and so renders again what the new commit rendered already.
//
// The waits of a process share the asks (watcher.rf): a root that several
// patches' steps of one push changed is asked once, and not again while
// the controller has not taken the last ask; the patches are sent a few at
// once, beside the waits, so that a wait looks at what it waits for
// without waiting behind them.
//
// An ask the controller does not take (the annotation stays: the
// controller is down, or its queue is long) is not sent again: the same
// annotation patched again changes nothing, so the API server writes
// nothing and tells no Cache, and a controller that comes back compares
// every Application, reading the annotation then. Each wait reports it
// instead, once an ask (KindStalled), when it has stayed refreshStalled
// RefreshEvery.

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
	// seq counts the asks; last is the latest ask of each Application,
	// as seq and time.
	seq  uint64
	last map[AppKey]asked
	// queue is what the senders have to send, queued what it holds.
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

// pick chooses which of keys to ask a refresh of now, and records the
// asks: each not queued already, unless one was asked after mark (the
// step's push) that is younger than every or that the controller has not
// taken yet (annotated: the Application still carries it). The asks not
// taken for refreshStalled times every are stalled. rf.mu is held.
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
