package rollout

// ShellQuote joins args as a POSIX shell reads them back (see shellQuote),
// for the commands other packages print to be pasted.
func ShellQuote(args ...string) string { return shellQuote(args...) }
