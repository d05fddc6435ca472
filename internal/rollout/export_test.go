package rollout

// SetQueuedHook tells f of each step asked of RunAll's writer, for the
// tests that need several steps ready at once; it returns the undo.
func SetQueuedHook(f func(patch string)) (undo func()) {
	queuedHook = f
	return func() { queuedHook = nil }
}
