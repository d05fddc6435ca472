package action

import (
	"github.com/strata-fleet/strata/internal/output"
	"github.com/strata-fleet/strata/internal/promote"
)

// Render is strata render: rendered/ brought to the fleet's output
// (output.Run), or with Check compared with it, and then a promotion whose
// only step left was this re-render finished. The caller holds the
// repository's lock: exclusive, or shared with Check.
type Render struct {
	// Check writes nothing: the result's plan lists what is out of date.
	Check bool
	// Fresh renders every target, even those the render state knows to
	// be current.
	Fresh bool
	// Progress, Rendered and Switching are output.Options' (nil: none).
	Progress  func(done, total int)
	Rendered  func()
	Switching func(path string)
}

// Rendered is what a render did.
type Rendered struct {
	*output.Result
	// Finished is the promotion the render finished (nil: none).
	Finished *promote.Journal
}

// Run renders r's fleet. Without the render state (a local state that
// cannot be written) it renders every target. A promotion left to finish
// that cannot be is an error returned with the render's result.
func (a *Render) Run(r *Repo) (*Rendered, error) {
	opts := output.Options{Root: r.Dir, FS: r.FS, Check: a.Check, Fresh: a.Fresh,
		Progress: a.Progress, Rendered: a.Rendered, Switching: a.Switching}
	var err error
	if opts.StatePath, err = output.StatePath(r.Dir); err != nil {
		opts.StatePath = ""
	}
	res, err := output.Run(opts)
	if err != nil {
		return nil, err
	}
	out := &Rendered{Result: res}
	if !a.Check {
		// The result comes back with the error too: its warnings are
		// still to be said.
		out.Finished, err = r.FinishRendered()
	}
	return out, err
}

// rerender brings rendered/ up to date after a command changed config/
// (pin): every target, with the render state. The command holds the
// repository lock. Hooks are output.Options' Rendered and Switching.
func rerender(r *Repo, rendered func(), switching func(string)) (*output.Result, error) {
	statePath, _ := output.StatePath(r.Dir)
	return output.Run(output.Options{Root: r.Dir, FS: r.FS, StatePath: statePath, Rendered: rendered, Switching: switching})
}
