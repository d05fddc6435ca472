package status

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/strata-fleet/strata/internal/fleet"
	"github.com/strata-fleet/strata/internal/printable"
	"github.com/strata-fleet/strata/internal/rollout/inflight"
)

// ReadRollouts fills in s.Rollouts: where the rollout of each patch of s
// stands (inflight.Flights, from the fleet f, the repository fsys, its Git
// history and, in opts, the live state and the stopWhen conditions). The
// patches are those s shows (a filtered status shows theirs alone).
func ReadRollouts(ctx context.Context, s *Status, f *fleet.Fleet, fsys fs.FS, opts inflight.FlightOptions) error {
	flights, history, err := inflight.Flights(ctx, f, fsys, opts)
	if err != nil {
		return fmt.Errorf("reading the rollouts in flight: %w", err)
	}
	s.Rollouts = []inflight.Flight{}
	for _, fl := range flights {
		if s.shows(fl) {
			s.Rollouts = append(s.Rollouts, fl)
		}
	}
	s.noHistory = !history
	return nil
}

// shows reports whether s has the rollout of fl's patch: s has the patch
// <type>/<component>/<patch>, or, when the patch's files are gone
// (fl.Removed), its component and, under a --patch filter, its name.
func (s *Status) shows(fl inflight.Flight) bool {
	parts := strings.SplitN(fl.Patch, "/", 3)
	for _, ct := range s.ClusterTypes {
		if ct.Name != parts[0] {
			continue
		}
		if slices.ContainsFunc(ct.Patches, func(p Patch) bool { return p.Component == parts[1] && p.Name == parts[2] }) {
			return true
		}
		if fl.Removed != "" && slices.Contains(ct.Components, parts[1]) && (s.patch == "" || s.patch == parts[2]) {
			return true
		}
	}
	return false
}

// RolloutRow is one rollout in flight as the table and the HTML page show
// it: each field one short text, "-" for none.
type RolloutRow struct {
	// ClusterType, Component and Name make up Patch, for links.
	ClusterType, Component, Name                            string
	Patch, At, Wave, Waiting, SoakLeft, HeldBy, LastFailure string
	// Blocked, Held and Failed ask for the warning style.
	Blocked, Held, Failed bool
}

// RolloutRows are s.Rollouts as rows.
func (s *Status) RolloutRows() []RolloutRow {
	var out []RolloutRow
	for _, fl := range s.Rollouts {
		parts := strings.SplitN(fl.Patch, "/", 3)
		r := RolloutRow{ClusterType: parts[0], Component: parts[1], Name: parts[2], Patch: fl.Patch, At: fl.At, Wave: "-", Waiting: waitingText(fl), SoakLeft: "-", HeldBy: "-", LastFailure: "-"}
		if w := fl.Wave; w != nil {
			r.Wave = fmt.Sprintf("%d/%d %s", w.Number, w.Of, w.Group)
		}
		if fl.SoakLeft != "" {
			r.SoakLeft = fl.SoakLeft
		}
		if fl.HeldBy != "" {
			r.HeldBy, r.Held = fl.HeldBy, true
		}
		if lf := fl.LastFailure; lf != nil {
			r.Failed = true
			r.LastFailure = lf.Reason
			if lf.Source == "revert" {
				r.LastFailure = fmt.Sprintf("reverted in %.12s: %s", lf.Commit, lf.Reason)
			}
		}
		r.Blocked = fl.Problem != ""
		// Reasons, holds and waits quote commit messages and trailers,
		// which anyone who can push writes.
		r.Waiting, r.HeldBy, r.LastFailure = printable.String(r.Waiting), printable.String(r.HeldBy), printable.String(r.LastFailure)
		out = append(out, r)
	}
	return out
}

// NoHistory reports whether the rollouts were derived without a Git
// history (no last steps, soaks or reverts).
func (s *Status) NoHistory() bool { return s.noHistory }

// waitingText says what the next step waits for, or what it does next
// when it waits for nothing.
func waitingText(fl inflight.Flight) string {
	var parts []string
	for _, w := range fl.Waits {
		switch w.Kind {
		case "soak":
			if fl.Removed == "fold" {
				parts = append(parts, "soak of the fold")
			} else {
				parts = append(parts, "soak")
			}
		case "gate":
			parts = append(parts, "approval at "+w.Node)
		default:
			parts = append(parts, w.Message)
		}
	}
	switch {
	case len(parts) > 0:
		return strings.Join(parts, ", ")
	case fl.Removed == "revert":
		return "nothing: its first step was reverted"
	case fl.Problem != "":
		return "blocked: " + fl.Problem
	case fl.Folds:
		return "nothing: the fold is next"
	case fl.Next != "":
		return "nothing: the step to " + fl.Next + " is next"
	}
	return "-"
}

// rollouts writes the rollouts in flight, one line each (one block each
// when the line is wider than the terminal).
func (tw *tableWriter) rollouts(s *Status) {
	rows := s.RolloutRows()
	if len(rows) == 0 {
		return
	}
	tw.line("")
	tw.line("Rollouts in flight:")
	cols := []column{{header: "PATCH"}, {header: "AT", left: true}, {header: "WAVE"}, {header: "WAITING FOR"},
		{header: "SOAK LEFT"}, {header: "HELD BY"}, {header: "LAST FAILURE"}}
	cells := make([][]cell, len(rows))
	for i, r := range rows {
		cells[i] = []cell{{text: r.Patch, style: stylePatch}, {text: r.At}, {text: r.Wave}, {text: r.Waiting}, {text: r.SoakLeft},
			{text: r.HeldBy}, {text: r.LastFailure}}
		if r.Blocked {
			cells[i][3].style = styleBad
		}
		if r.Held {
			cells[i][5].style = styleBad
		}
		if r.Failed {
			cells[i][6].style = styleBad
		}
	}
	natural(cols, cells)
	if tw.opts.Width > 0 && tableWidth(cols) > tw.opts.Width {
		for _, r := range cells {
			tw.line(tw.style(truncate(r[0].text, tw.opts.Width, false), r[0].style))
			for i, c := range cols[1:] {
				text := truncate(r[i+1].text, tw.opts.Width-15, cols[i+1].left)
				tw.line(fmt.Sprintf("  %-13s%s", strings.ToLower(c.header), tw.style(text, r[i+1].style)))
			}
		}
	} else {
		tw.rows(cols, cells, nil)
	}
	if s.noHistory {
		tw.line(tw.style(truncate("not a Git repository: the last steps, soaks and reverts are unknown", tw.opts.Width, false), styleDim))
	}
}
