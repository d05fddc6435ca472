package cli

// SetRenderedHook sets the function every render calls before it changes
// rendered/, and returns a function that removes it.
func SetRenderedHook(f func()) (reset func()) {
	renderedHook = f
	return func() { renderedHook = nil }
}
