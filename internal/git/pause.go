package git

import (
	"context"
	"time"
)

// Pause waits d, or until ctx ends (then its cause): the backoff before a
// refused push is tried again (the rollout writer's and the record's).
func Pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-t.C:
		return nil
	}
}
