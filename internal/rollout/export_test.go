package rollout

// SetQueuedHook tells f of each step asked of RunAll's writer, for the
// tests that need several steps ready at once; it returns the undo.
func SetQueuedHook(f func(patch string)) (undo func()) {
	queuedHook = f
	return func() { queuedHook = nil }
}

// CountReactions makes the rollouts run with env count the changes that
// woke a wait (woken) and the evaluations of a wait's verdict (evaluated).
func CountReactions(env *Env) (woken, evaluated func() int64) {
	env.reactions = &reactions{}
	return env.reactions.woken.Load, env.reactions.evaluated.Load
}

// ExpectationReads is how many times the rollouts of this process read
// what the rendered output expects (live.Expect and the history).
func ExpectationReads() int64 { return expectationReads.Load() }
