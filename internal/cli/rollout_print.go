package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/strata-fleet/strata/internal/printable"
	"github.com/strata-fleet/strata/internal/rollout"
	"github.com/strata-fleet/strata/internal/status"
)

// rolloutPrinter shows a rollout's events: as data (one JSON object per
// line, or one YAML document, per event), or on a terminal a status line redrawn every second
// (the step, the Applications waited on, synced/healthy counts, elapsed
// and soak time left) between the lines of the events that stay.
type rolloutPrinter struct {
	w    io.Writer
	data outputFormat // json or yaml: events as data; else text
	tty  bool

	mu     sync.Mutex
	status *rollout.Event // the wait or soak being shown
	// lastWait is the last wait line without its elapsed time: a wait
	// event that says nothing new prints no line.
	lastWait string
	stop     chan struct{}
	now      func() time.Time
	// strata names a command for the user to run (globals.strata).
	strata func(args ...string) string
}

func newRolloutPrinter(w io.Writer, format outputFormat, strata func(args ...string) string) *rolloutPrinter {
	p := &rolloutPrinter{w: w, tty: !format.data() && isTerminal(w), stop: make(chan struct{}), now: time.Now, strata: strata}
	if format.data() {
		p.data = format
	}
	if p.tty {
		go p.tick()
	}
	return p
}

func (p *rolloutPrinter) tick() {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			p.redraw()
			p.mu.Unlock()
		}
	}
}

func (p *rolloutPrinter) close() {
	close(p.stop)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearStatus()
}

func (p *rolloutPrinter) event(e rollout.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e.Next != nil && p.strata != nil {
		e.Command = p.strata(e.Next...)
	}
	if p.data != "" {
		_ = p.data.writeEvent(p.w, e)
		return
	}
	if e.Kind == rollout.KindError {
		return // the command's error says it, on stderr
	}
	if p.tty && (e.Kind == rollout.KindWaiting || e.Kind == rollout.KindSoaking) {
		p.status = &e
		p.redraw()
		return
	}
	if e.Kind == rollout.KindWaiting {
		same := fmt.Sprintf("%s%s %d %d %d%s", e.Patch, e.Step, e.Synced, e.Healthy, e.Total, notReady(e.Apps))
		if same == p.lastWait {
			return
		}
		p.lastWait = same
	}
	p.clearStatus()
	p.status = nil
	fmt.Fprint(p.w, rolloutLine(e, p.now()))
}

func (p *rolloutPrinter) clearStatus() {
	if p.tty && p.status != nil {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

func (p *rolloutPrinter) redraw() {
	if p.status == nil {
		return
	}
	line := strings.TrimRight(rolloutLine(*p.status, p.now()), "\n")
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	fmt.Fprintf(p.w, "\r\033[K%s", line)
}

// rolloutLine is the text of one event, ending in a newline. Its message
// quotes commit messages: their control characters are shown, not sent
// to the terminal (printable; errors, with their reasons, are cleaned in
// Main).
func rolloutLine(e rollout.Event, now time.Time) string {
	e.Message = printable.String(e.Message)
	var b strings.Builder
	switch e.Kind {
	case rollout.KindStart, rollout.KindResumed, rollout.KindDone:
		b.WriteString(e.Message)
	case rollout.KindPlanned:
		fmt.Fprintf(&b, "would %s (soak %s, timeout %s", lowerFirst(e.Message), e.Soak, e.Timeout)
		if len(e.Checks) > 0 {
			fmt.Fprintf(&b, ", checks %s", strings.Join(e.Checks, ", "))
		}
		if len(e.Gates) > 0 {
			fmt.Fprintf(&b, ", approved gate %s", strings.Join(e.Gates, ", "))
		}
		if e.MaxUnhealthy != "" {
			b.WriteString(", maxUnhealthy " + e.MaxUnhealthy)
		}
		b.WriteString(")")
		for _, n := range e.Nodes {
			if len(e.Nodes) > 1 {
				fmt.Fprintf(&b, "\n  enters %s", n)
			}
		}
	case rollout.KindPromoted:
		fmt.Fprintf(&b, "%.12s %s", e.Commit, e.Message)
	case rollout.KindWaiting, rollout.KindHealthy:
		fmt.Fprintf(&b, "%s: %d/%d Applications synced at %.12s, %d/%d healthy (%s)", stepName(e), e.Synced, e.Total, e.Commit, e.Healthy, e.Total,
			now.Sub(e.Since).Round(time.Second))
		if e.Kind == rollout.KindWaiting {
			b.WriteString(notReady(e.Apps))
		}
		b.WriteString(withinBudget(e.Unhealthy))
	case rollout.KindSoaking:
		fmt.Fprintf(&b, "%s: soaking, %d/%d healthy, %s left", stepName(e), e.Healthy, e.Total, max(0, e.SoakUntil.Sub(now)).Round(time.Second))
	case rollout.KindSoaked, rollout.KindUnhealthy, rollout.KindUnwatched, rollout.KindPending, rollout.KindStalled:
		fmt.Fprintf(&b, "%s: %s", stepName(e), e.Message)
	case rollout.KindCheck:
		switch {
		case e.Recorded:
			fmt.Fprintf(&b, "%s: check %s %s", stepName(e), e.Check, e.Message)
		case e.Passed:
			fmt.Fprintf(&b, "%s: check %s passed", stepName(e), e.Check)
		default:
			fmt.Fprintf(&b, "%s: check %s failed", stepName(e), e.Check)
		}
	case rollout.KindGate:
		fmt.Fprintf(&b, "stopped: %s", e.Message)
	case rollout.KindHeld:
		fmt.Fprintf(&b, "held: %s", e.Message)
	case rollout.KindFailed:
		fmt.Fprintf(&b, "%s: the step failed (%d failures)", stepName(e), len(e.Failures))
	case rollout.KindReverted:
		fmt.Fprintf(&b, "%.12s %s", e.Commit, e.Message)
	default:
		fmt.Fprintf(&b, "%s %s", e.Kind, e.Message)
	}
	b.WriteString("\n")
	if e.Patch != "" { // rollout --all: whose event
		return e.Patch + ": " + b.String()
	}
	return b.String()
}

// stepName names the step of e: its node, or the nodes of its wave (cut
// as nameList cuts lists; -o json has them all in nodes).
func stepName(e rollout.Event) string {
	if len(e.Nodes) > 1 {
		return shortList(e.Nodes)
	}
	return e.Step
}

// notReady names the Applications not yet synced and healthy, a few.
func notReady(apps []rollout.AppState) string {
	var out []string
	for _, a := range apps {
		if a.Healthy() {
			continue
		}
		line := fmt.Sprintf("%s on %s: %s", a.Name, a.ArgoCD, a.State)
		if len(a.Revisions) > 0 {
			line += " (at " + status.RevisionsText(a.Revisions, a.Revision) + ")"
		}
		out = append(out, line)
	}
	if len(out) > 3 {
		out = append(out[:3], fmt.Sprintf("%d more", len(out)-3))
	}
	if len(out) == 0 {
		return ""
	}
	return "; waiting for " + strings.Join(out, ", ")
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// withinBudget names the clusters a step lets fail within its budget.
func withinBudget(unhealthy []rollout.Failure) string {
	if len(unhealthy) == 0 {
		return ""
	}
	var names []string
	for _, f := range unhealthy {
		names = append(names, f.Cluster)
	}
	return "; unhealthy within maxUnhealthy: " + strings.Join(names, ", ")
}
