package writer

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/testing/testgit"
)

// A push refused where the fetch that would say whether the remote moved
// fails too is an error that says both: the step is neither taken for
// pushed nor made again on a guess that the remote did not move.
func TestPublishWhenTheFetchFails(t *testing.T) {
	clone := t.TempDir()
	bare := testgit.Remote(t, clone)
	hook := filepath.Join(bare, "hooks", "pre-receive")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\necho refused by the test >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Pushes reach the remote; fetches a path that is not there.
	testgit.Run(t, clone, "remote", "set-url", "--push", "origin", bare)
	testgit.Run(t, clone, "remote", "set-url", "origin", filepath.Join(t.TempDir(), "gone.git"))
	testgit.Run(t, clone, "commit", "-q", "--allow-empty", "-m", "step")
	base := testgit.Run(t, clone, "rev-parse", "HEAD^")

	r := &Repo{Git: git.Repo{Git: git.Exec{Dir: clone}}, Dir: clone, Remote: "origin", Branch: "main"}
	err := (&Writer{}).publish(context.Background(), r, nil, base)
	if err == nil {
		t.Fatal("publish: no error, want the refused push and the failed fetch")
	}
	for _, want := range []string{"pushing to origin main", "fetching to see whether the remote moved"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("publish: %v\nwant it to say %q", err, want)
		}
	}
}
