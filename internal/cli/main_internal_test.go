package cli

import (
	"bytes"
	"errors"
	"testing"

	"github.com/strata-fleet/strata/internal/kube"
)

// An error that quotes the repository's text raw (a YAML parser's message,
// a line of a file) reaches the terminal with its control characters
// escaped; the message's own line breaks and tabs stay.
func TestPrintErrorEscapesControls(t *testing.T) {
	var b bytes.Buffer
	printError(&b, errors.New("bad line \"a\x1b[2J\rb\u202ec\":\n\tconfig/a.yaml:1:1"), false, kube.Scrub)
	want := "strata: bad line \"a\\x1b[2J\\rb\\u202ec\":\n\tconfig/a.yaml:1:1\n"
	if got := b.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// The next commands a library names repeat --root, so that they work when
// pasted where the run was started; the CLI's own already do; a message
// that names no command is unchanged.
func TestCleanRepeatsRoot(t *testing.T) {
	for _, c := range []struct{ root, msg, want string }{
		{"", "run strata promote --resume to complete it", "run strata promote --resume to complete it"},
		{"/r/fleet", "run strata promote --resume to complete it", "run strata --root /r/fleet promote --resume to complete it"},
		{"/r/my fleet", "finish it with strata promote --resume (or drop it with strata promote --abandon)",
			"finish it with strata --root '/r/my fleet' promote --resume (or drop it with strata --root '/r/my fleet' promote --abandon)"},
		{"/r", "lift it with strata unfreeze production", "lift it with strata --root /r unfreeze production"},
		{"/r", "continue with strata --root /r rollout a b c --approve x", "continue with strata --root /r rollout a b c --approve x"},
		{"/r", "strata: the lock is held by strata-fleet", "strata: the lock is held by strata-fleet"},
		{"/r", `the repository is locked by "strata promote a b c" (pid 1)`, `the repository is locked by "strata promote a b c" (pid 1)`},
		{"/r/$HOME", "(run strata promote --resume)", "(run strata --root '/r/$HOME' promote --resume)"},
	} {
		g := &globals{root: c.root}
		if got := g.clean(c.msg); got != c.want {
			t.Errorf("root %q: clean(%q) =\n%q, want\n%q", c.root, c.msg, got, c.want)
		}
	}
}
