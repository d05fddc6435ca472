package cli_test

import (
	"context"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/record"
)

// cmdRecord writes an entry of delivery's record (package record) into
// the scenario's repository as strata's rollout writes it, for the
// scenarios of what strata reads back (status, a rollout that stays
// stopped) without a cluster to fail a step on:
//
//	record KIND PATCH NODE STEP [REVERT [FAILURE]] [targets=T1,T2]
//
// STEP and REVERT are revisions; the rendered tree and the patch's files
// are read at them as strata reads them.
func cmdRecord(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 4 {
		ts.Fatalf("usage: record KIND PATCH NODE STEP [REVERT [FAILURE]] [targets=T1,T2]")
	}
	var targets []string
	if t, ok := strings.CutPrefix(args[len(args)-1], "targets="); ok {
		targets, args = strings.Split(t, ","), args[:len(args)-1]
	}
	ctx := context.Background()
	var env []string
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "HOME"} {
		env = append(env, k+"="+ts.Getenv(k))
	}
	g := git.Exec{Dir: ts.MkAbs("."), Env: env}
	rev := func(r string) string {
		out, err := g.Run(ctx, "rev-parse", r)
		ts.Check(err)
		return strings.TrimSpace(out)
	}
	e := record.Entry{Kind: args[0], Patch: args[1], Node: args[2], Step: rev(args[3]), Targets: targets}
	files := e.Step
	if len(args) > 4 {
		e.Revert = rev(args[4])
		files = e.Revert
	}
	if len(args) > 5 {
		e.Failures = []string{args[5]}
	}
	var err error
	e.Tree, err = record.TreeOf(ctx, g, e.Step, e.Targets)
	ts.Check(err)
	e.PatchFiles, err = record.FilesOf(ctx, g, files, e.Patch)
	ts.Check(err)
	ts.Check((&record.Log{Git: g, Dir: ts.MkAbs(".")}).Append(ctx, e))
}
