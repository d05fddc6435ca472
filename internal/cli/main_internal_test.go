package cli

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/strata-fleet/strata/internal/hint"
	"github.com/strata-fleet/strata/internal/kube"
	"github.com/strata-fleet/strata/internal/promote"
)

// An error that quotes the repository's text raw (a YAML parser's message,
// a line of a file) reaches the terminal with its control characters
// escaped; the message's own line breaks and tabs stay.
func TestPrintErrorEscapesControls(t *testing.T) {
	var b bytes.Buffer
	printError(&b, errors.New("bad line \"a\x1b[2J\rb\u202ec\":\n\tconfig/a.yaml:1:1"), false, func(err error) string { return kube.Scrub(err.Error()) })
	want := "strata: bad line \"a\\x1b[2J\\rb\\u202ec\":\n\tconfig/a.yaml:1:1\n"
	if got := b.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// The next commands a library names (package hint) repeat --root, so that
// they work when pasted where the run was started, wherever the error
// wraps them; the CLI's own already do; text that only mentions or quotes
// a command is unchanged.
func TestCleanRepeatsRoot(t *testing.T) {
	resume, abandon := promote.ResumeCommand, promote.AbandonCommand
	for _, c := range []struct {
		root string
		err  error
		want string
	}{
		{"", hint.Errorf("run %s to complete it", resume), "run strata promote --resume to complete it"},
		{"/r/fleet", hint.Errorf("run %s to complete it", resume), "run strata --root /r/fleet promote --resume to complete it"},
		{"/r/my fleet", hint.Errorf("finish it with %s (or drop it with %s)", resume, abandon),
			"finish it with strata --root '/r/my fleet' promote --resume (or drop it with strata --root '/r/my fleet' promote --abandon)"},
		{"/r", fmt.Errorf("catching up: %w", hint.Errorf("lift it with %s", hint.Strata("unfreeze", "production"))),
			"catching up: lift it with strata --root /r unfreeze production"},
		{"/r", hint.Wrap(errors.New("finish it with strata promote --resume first"), resume),
			"finish it with strata --root /r promote --resume first"},
		{"/r", &promote.GateError{Gates: []string{"prod"}, Next: hint.Strata("promote", "mc", "cm", "patch-001")},
			`promotion enters the manual gate "prod"; approve it with: strata --root /r promote mc cm patch-001 --approve`},
		{"/r", &promote.GateError{Gates: []string{"prod"}, Command: "strata --root /r promote mc cm patch-001 --level region", Next: hint.Strata("promote", "mc", "cm", "patch-001")},
			`promotion enters the manual gate "prod"; approve it with: strata --root /r promote mc cm patch-001 --level region --approve`},
		{"/r", errors.New("continue with strata --root /r rollout a b c --approve x"), "continue with strata --root /r rollout a b c --approve x"},
		{"/r", errors.New("strata: the lock is held by strata-fleet"), "strata: the lock is held by strata-fleet"},
		{"/r", errors.New(`the repository is locked by "strata promote a b c" (pid 1)`), `the repository is locked by "strata promote a b c" (pid 1)`},
		{"/r", errors.New("watch: false declares that the node's steps have nothing for strata rollout to wait on"),
			"watch: false declares that the node's steps have nothing for strata rollout to wait on"},
		{"/r/$HOME", hint.Errorf("(run %s)", resume), "(run strata --root '/r/$HOME' promote --resume)"},
	} {
		g := &globals{root: c.root}
		if got := g.clean(c.err); got != c.want {
			t.Errorf("root %q: clean(%q) =\n%q, want\n%q", c.root, c.err, got, c.want)
		}
	}
}
