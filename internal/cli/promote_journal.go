package cli

import (
	"fmt"

	"github.com/strata-fleet/strata/internal/promote"
)

// abandonJournal drops the record of an unfinished promotion.
func (o *promoteOptions) abandonJournal(r *repo) error {
	j, err := r.AbandonPromotion()
	if err != nil {
		return err
	}
	switch {
	case o.output.data():
		return o.output.write(o.stdout, struct {
			Abandoned *promote.Journal `json:"abandoned"`
		}{j})
	case j == nil:
		fmt.Fprintln(o.stdout, "no unfinished promotion to abandon")
	default:
		fmt.Fprintf(o.stdout, "abandoned: %s\nnothing was changed: compare config/ with git (git status config/) and render\n", j.Describe())
	}
	return nil
}
