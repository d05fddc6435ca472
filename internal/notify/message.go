package notify

import (
	"fmt"
	"strings"
	"time"

	"github.com/strata-fleet/strata/internal/rollout"
)

// Message is what a generic webhook receives, as JSON.
type Message struct {
	// Event is one of fleet.NotifyEvents.
	Event string    `json:"event"`
	Time  time.Time `json:"time"`
	// Patch is <type>/<component>/<patch>; Step the node of the step.
	Patch  string `json:"patch"`
	Step   string `json:"step,omitempty"`
	Commit string `json:"commit,omitempty"`
	// Text says what happened in a line.
	Text string `json:"text"`
	// Rollout is the rollout's event as rollout -o json prints it (none
	// for folded).
	Rollout *rollout.Event `json:"rollout,omitempty"`
}

// messageOf is the message of event e, named name.
func messageOf(name string, e rollout.Event) Message {
	m := Message{Event: name, Time: e.Time, Patch: e.Patch, Step: e.Step, Commit: e.Commit, Rollout: &e}
	switch e.Kind {
	case rollout.KindPromoted:
		m.Text = fmt.Sprintf("%s: step into %s pushed (%.12s)", e.Patch, e.Step, e.Commit)
	case rollout.KindHealthy:
		m.Text = fmt.Sprintf("%s: step into %s is healthy (%d/%d)", e.Patch, e.Step, e.Healthy, e.Total)
	case rollout.KindFailed:
		m.Text = fmt.Sprintf("%s: step into %s failed: %s", e.Patch, e.Step, failures(e.Failures))
	case rollout.KindReverted:
		m.Text = fmt.Sprintf("%s: step into %s reverted (%.12s)", e.Patch, e.Step, e.Commit)
	case rollout.KindGate:
		m.Text = fmt.Sprintf("%s: the next step waits for approval of %s: %s", e.Patch, strings.Join(e.Gates, ", "), e.Command)
	case rollout.KindHeld:
		m.Text = fmt.Sprintf("%s: the step into %s is held: %s", e.Patch, e.Step, e.Message)
	}
	return m
}

// failures names up to three failures and counts the rest.
func failures(fs []rollout.Failure) string {
	var parts []string
	for i, f := range fs {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(fs)-3))
			break
		}
		where := f.App
		switch {
		case f.Check != "":
			where = "check " + f.Check
		case f.Alert != "":
			where = "stopWhen " + f.Alert
		case f.Cluster != "":
			where = f.App + " on " + f.Cluster
		}
		parts = append(parts, where+": "+f.Reason)
	}
	if len(parts) == 0 {
		return "no reason given"
	}
	return strings.Join(parts, "; ")
}

// Slack is m as a Slack message's text: an emoji for the event, then
// what happened.
func (m Message) Slack() string {
	mark := map[string]string{"started": ":arrow_forward:", "healthy": ":white_check_mark:", "failed": ":x:",
		"reverted": ":leftwards_arrow_with_hook:", "gated": ":raised_hand:", "frozen": ":snowflake:", "folded": ":tada:"}[m.Event]
	return strings.TrimSpace(mark + " " + m.Text)
}
