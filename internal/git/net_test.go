//go:build linux

package git_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strata-fleet/strata/internal/git"
	"github.com/strata-fleet/strata/internal/testing/testgit"
)

// A remote that accepts the connection and never answers: git's
// upload-pack and receive-pack for it are a script that records its pid
// and sleeps. fetch, push and ls-remote each end at the NetTimeout (or the
// caller's deadline, when sooner) with an error that says so, and the
// helper git started for the remote is killed with git.
func TestRemoteThatHangs(t *testing.T) {
	_, dir := newRepo(t, map[string]string{"a.txt": "a\n"})
	hang := filepath.Join(t.TempDir(), "hang")
	pids := filepath.Join(t.TempDir(), "pids")
	if err := os.WriteFile(hang, []byte("#!/bin/sh\necho $$ >>"+pids+"\nexec sleep 600\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	bare := t.TempDir()
	ctx := context.Background()
	setup := git.Exec{Dir: dir, Env: testgit.Env}
	for _, args := range [][]string{{"clone", "-q", "--bare", dir, bare}, {"remote", "add", "origin", bare},
		{"config", "remote.origin.uploadpack", hang}, {"config", "remote.origin.receivepack", hang}} {
		if _, err := setup.Run(ctx, args...); err != nil {
			t.Fatal(err)
		}
	}

	tests := []struct {
		name string
		args []string
		// deadline is the caller's, when set.
		deadline time.Duration
		want     string
	}{
		{name: "fetch", args: []string{"fetch", "-q", "origin", "main"}, want: "no answer from the remote within 300ms: stopped"},
		{name: "push", args: []string{"push", "-q", "origin", "HEAD:refs/heads/other"}, want: "no answer from the remote within 300ms: stopped"},
		{name: "ls-remote", args: []string{"ls-remote", "--heads", "origin"}, want: "no answer from the remote within 300ms: stopped"},
		{name: "fetch after options", args: []string{"-c", "protocol.version=2", "fetch", "-q", "origin"}, want: "no answer from the remote within 300ms: stopped"},
		{name: "the caller's deadline first", args: []string{"fetch", "-q", "origin"}, deadline: 200 * time.Millisecond, want: "signal: killed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(pids)
			g := git.Exec{Dir: dir, Env: testgit.Env, NetTimeout: 300 * time.Millisecond}
			if tt.deadline > 0 {
				g.NetTimeout = time.Hour
			}
			ctx := context.Background()
			if tt.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.deadline)
				defer cancel()
			}
			done := make(chan error, 1)
			go func() {
				_, err := g.Run(ctx, tt.args...)
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(time.Minute): // a guard, not the measure: the bound is 300 ms
				t.Fatalf("git %s against a remote that hangs did not end", strings.Join(tt.args, " "))
			}
			var ge *git.Error
			if !errors.As(err, &ge) || !strings.Contains(ge.Msg, tt.want) {
				t.Fatalf("want a *git.Error saying %q, got %v", tt.want, err)
			}
			data, rerr := os.ReadFile(pids)
			if rerr != nil {
				t.Fatalf("the remote's helper never ran: %v", rerr)
			}
			for _, f := range strings.Fields(string(data)) {
				pid, _ := strconv.Atoi(f)
				waitGone(t, pid)
			}
		})
	}
}

// waitGone waits until the process pid has ended (gone, or a zombie
// waiting for its parent to reap it), for at most 10 s.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	stop := time.Now().Add(10 * time.Second)
	for {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return
		}
		if _, after, ok := strings.Cut(string(stat), ") "); ok && strings.HasPrefix(after, "Z") {
			return
		}
		if time.Now().After(stop) {
			t.Fatalf("the remote's helper (pid %d) still runs after git ended: %s", pid, stat)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
