package livecache

import (
	"context"
	"time"
)

// The Cache's side of the refreshes (refresh.go): asks picked, queued and
// sent by a few senders beside the waits.

// Mark is where the asks stand now: a wait set read after its push takes
// it, and an ask later than it was made after the push.
func (w *Cache) Mark() uint64 {
	w.rf.mu.Lock()
	defer w.rf.mu.Unlock()
	return w.rf.seq
}

// AskRefresh asks a refresh of the keys pick chooses and returns those
// that stalled; with sync the caller sends them (a --once run).
func (w *Cache) AskRefresh(ctx context.Context, keys []AppKey, mark uint64, now time.Time, every time.Duration, sync bool,
	log func(string, ...any)) []StalledAsk {
	rf := w.rf
	rf.mu.Lock()
	ask, stalled := rf.pick(keys, mark, now, every, w.annotated)
	if !sync {
		for _, k := range ask {
			rf.queued[k] = true
			rf.queue = append(rf.queue, refreshReq{key: k, log: log})
		}
	}
	rf.mu.Unlock()
	if sync {
		for _, k := range ask {
			w.sendRefresh(ctx, k, log)
		}
		return stalled
	}
	rf.start.Do(func() {
		for range refreshSenders {
			go w.sendRefreshes()
		}
	})
	for range min(len(ask), refreshSenders) {
		select {
		case rf.wake <- struct{}{}:
		default:
		}
	}
	return stalled
}

// annotated reports whether the Application k carries a refresh not taken
// yet, as last seen; rf.mu is held.
func (w *Cache) annotated(k AppKey) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, in := range w.instances {
		if in.Cluster != k.ArgoCD {
			continue
		}
		if i, ok := in.at[k.Name]; ok {
			_, pending := in.Applications[i].Meta.Annotations[RefreshAnnotation]
			return pending
		}
	}
	return false
}

// sendRefreshes sends the queued refreshes until the Cache ends.
func (w *Cache) sendRefreshes() {
	rf := w.rf
	for {
		select {
		case <-w.ctx.Done():
			return
		case <-rf.wake:
		}
		for {
			rf.mu.Lock()
			if len(rf.queue) == 0 {
				rf.mu.Unlock()
				break
			}
			req := rf.queue[0]
			rf.queue = rf.queue[1:]
			delete(rf.queued, req.key)
			rf.mu.Unlock()
			w.sendRefresh(w.ctx, req.key, req.log)
		}
	}
}

// sendRefresh asks the Argo CD of k.ArgoCD for a normal refresh of the
// Application k.Name.
func (w *Cache) sendRefresh(ctx context.Context, k AppKey, log func(string, ...any)) {
	_, err := w.patchApp(ctx, k.ArgoCD, k.Name, `{"metadata":{"annotations":{"`+RefreshAnnotation+`":"normal"}}}`)
	if err != nil && ctx.Err() == nil {
		log("refreshing Application %s on %s: %v", k.Name, k.ArgoCD, err)
	}
}
