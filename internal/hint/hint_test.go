package hint_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/strata-fleet/strata/internal/hint"
)

func TestRooted(t *testing.T) {
	resume := hint.Strata("promote", "--resume")
	for _, c := range []struct {
		name, msg, root string
		cmds            []hint.Command
		want            string
	}{
		{"no root leaves it", "run strata promote --resume", "", []hint.Command{resume}, "run strata promote --resume"},
		{"each time it is named", "strata promote --resume, or strata promote --resume", "/r", []hint.Command{resume},
			"strata --root /r promote --resume, or strata --root /r promote --resume"},
		{"a root the shell would split is quoted", "(run strata promote --resume)", "/my fleet", []hint.Command{resume},
			"(run strata --root '/my fleet' promote --resume)"},
		{"a longer command is another", "run strata promote --resume-all", "/r", []hint.Command{resume}, "run strata promote --resume-all"},
		{"a mention that is no hint stays", "nothing for strata rollout to wait on", "/r", []hint.Command{resume}, "nothing for strata rollout to wait on"},
		{"a command's arguments are quoted as printed", "lift it with strata unfreeze 'a b'", "/r", []hint.Command{hint.Strata("unfreeze", "a b")},
			"lift it with strata --root /r unfreeze 'a b'"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := hint.Rooted(c.msg, c.root, c.cmds); got != c.want {
				t.Errorf("Rooted(%q, %q) = %q, want %q", c.msg, c.root, got, c.want)
			}
		})
	}
}

// Commands finds the hints wherever the error wraps or joins them.
func TestCommands(t *testing.T) {
	a, b := hint.Strata("render"), hint.Strata("unfreeze", "prod")
	err := fmt.Errorf("outer: %w", errors.Join(hint.Wrap(errors.New("run strata render"), a), errors.New("x"), fmt.Errorf("in: %w", hint.Wrap(errors.New("strata unfreeze prod"), b))))
	got := hint.Commands(err)
	if len(got) != 2 || got[0].String() != "strata render" || got[1].String() != "strata unfreeze prod" {
		t.Errorf("Commands = %q, want [strata render, strata unfreeze prod]", got)
	}
	if hint.Wrap(nil, a) != nil {
		t.Errorf("Wrap(nil) is not nil")
	}
}
