package cli

// SetRenderedHook sets the function every render calls before it changes
// rendered/, and returns a function that removes it.
func SetRenderedHook(f func()) (reset func()) {
	renderedHook = f
	return func() { renderedHook = nil }
}

// SetSwitchingHook sets the function every render calls before each step
// of its switch, and returns a function that removes it.
func SetSwitchingHook(f func(path string)) (reset func()) {
	switchingHook = f
	return func() { switchingHook = nil }
}
