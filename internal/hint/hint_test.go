package hint_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/strata-fleet/strata/internal/hint"
)

// rooted prints a command as the CLI does under --root /r.
func rooted(c hint.Command) string { return c.WithRoot("/r").String() }

// Message prints the commands an error names as data with the caller's
// printer, wherever the error wraps or joins them, and leaves text that
// only looks like a command alone.
func TestMessage(t *testing.T) {
	resume, abandon := hint.Strata("promote", "--resume"), hint.Strata("promote", "--abandon")
	for _, c := range []struct {
		name string
		err  error
		p    hint.Printer
		want string
	}{
		{"no printer is the plain message", hint.Errorf("run %s", resume), nil, "run strata promote --resume"},
		{"each command is printed by the printer", hint.Errorf("%s, or %s", resume, abandon), rooted,
			"strata --root /r promote --resume, or strata --root /r promote --abandon"},
		{"a wrapped error keeps its place", fmt.Errorf("outer: %w", hint.Errorf("run %s to finish", resume)), rooted,
			"outer: run strata --root /r promote --resume to finish"},
		{"a wrapped error's own wrapped error too", hint.Errorf("%w (run %s)", fmt.Errorf("in: %w", hint.Errorf("see %s", abandon)), resume), rooted,
			"in: see strata --root /r promote --abandon (run strata --root /r promote --resume)"},
		{"joined errors each", errors.Join(errors.New("x"), hint.Errorf("run %s", resume)), rooted,
			"x\nrun strata --root /r promote --resume"},
		{"text that only names a command is no hint", errors.New("run strata promote --resume"), rooted, "run strata promote --resume"},
		{"a command's arguments are quoted as printed", hint.Errorf("lift it with %s", hint.Strata("unfreeze", "a b")), rooted,
			"lift it with strata --root /r unfreeze 'a b'"},
		{"Wrap finds its commands standing whole", hint.Wrap(errors.New("run strata promote --resume, not strata promote --resume-all"), resume), rooted,
			"run strata --root /r promote --resume, not strata promote --resume-all"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := hint.Message(c.err, c.p); got != c.want {
				t.Errorf("Message = %q, want %q", got, c.want)
			}
		})
	}
}

// An error of Errorf says its plain message and wraps its %w argument as
// fmt.Errorf does.
func TestErrorfIsFmtErrorf(t *testing.T) {
	inner := errors.New("inner")
	err := hint.Errorf("%w (the next %s completes it)", inner, hint.Strata("render"))
	if want := fmt.Errorf("%w (the next %s completes it)", inner, "strata render").Error(); err.Error() != want {
		t.Errorf("Error = %q, want %q", err.Error(), want)
	}
	if !errors.Is(err, inner) {
		t.Errorf("the error does not wrap its %%w argument")
	}
	if hint.Wrap(nil, hint.Strata("render")) != nil {
		t.Errorf("Wrap(nil) is not nil")
	}
}

func TestTextCommands(t *testing.T) {
	text := hint.Textf("%s then %s (%d)", hint.Strata("render"), hint.Strata("promote", "a"), 3)
	if got := text.Commands(); len(got) != 2 || got[1].String() != "strata promote a" {
		t.Errorf("Commands = %q", got)
	}
	if text.String() != "strata render then strata promote a (3)" {
		t.Errorf("String = %q", text.String())
	}
	if (hint.Text{}).String() != "" {
		t.Errorf("the zero Text is not empty")
	}
}
