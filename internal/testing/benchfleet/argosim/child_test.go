//go:build linux

package argosim_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	"github.com/strata-fleet/strata/internal/rollout"
	"github.com/strata-fleet/strata/internal/testing/benchfleet/argosim"
	"github.com/strata-fleet/strata/internal/testing/testenv"
	"github.com/strata-fleet/strata/internal/testing/testgit"
)

// runChild runs `strata rollout --all -o json` (the binary bin) as a child
// process in dir, its Argo CD the hub's on api. The remote's post-receive
// hook tells argosim of each push through a FIFO, as a webhook would. The
// child's peak RSS and CPU time are wait4's (its git commands included:
// ru_maxrss is the largest of the process and its waited children).
func runChild(ctx context.Context, b *testing.B, bin string, api *testenv.APIServer, dir, bare string, sim *argosim.Sim, soak, timeout time.Duration) delivered {
	announcePushes(b, bare, sim)
	cmd := exec.CommandContext(ctx, bin, "rollout", "--all", "-o", "json", "--kubeconfig", api.Kubeconfig,
		"--cluster-context", "hub="+testenv.ContextName, "--soak", soak.String(), "--timeout", timeout.String())
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), testgit.Env...)
	// Stopped (STRATA_BENCH_STOP_AFTER_S), strata ends its rollouts on
	// SIGTERM as it would in a pod, and exits with its usage counted.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = time.Minute
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	var out delivered
	out.child = true
	patches, done := map[string]bool{}, map[string]bool{}
	usage, err := argosim.RunChild(cmd, func() {
		watchMemory(ctx, b, cmd.Process.Pid)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var e rollout.Event
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				b.Errorf("strata printed %q: %v", sc.Text(), err)
				continue
			}
			out.events = append(out.events, e)
			if e.Patch != "" {
				patches[e.Patch] = true
				if e.Kind == rollout.KindDone {
					done[e.Patch] = true
				}
			}
		}
	})
	if err != nil && ctx.Err() == nil {
		b.Errorf("strata rollout --all: %v\n%s", err, stderr.String())
	}
	out.took, out.rss, out.usage = usage.Took, int(usage.MaxRSS), usage
	out.failed, out.done = len(patches)-len(done), len(done)
	return out
}

// announcePushes tells sim of each push of main to the remote bare, as a
// webhook would tell Argo CD: the remote's post-receive hook writes main's
// new commit to a FIFO this process reads until the test ends. Pushes of
// other refs (strata's record, refs/strata/record) are no news to Argo CD.
func announcePushes(tb testing.TB, bare string, sim *argosim.Sim) {
	fifo := filepath.Join(tb.TempDir(), "pushes")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		tb.Fatal(err)
	}
	// Read and write: the FIFO never reads as ended between pushes.
	pushes, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { pushes.Close() })
	go func() {
		sc := bufio.NewScanner(pushes)
		for sc.Scan() {
			sim.Pushed(strings.TrimSpace(sc.Text()))
		}
	}()
	hook := "#!/bin/sh\nwhile read old new ref; do\n\t[ \"$ref\" = refs/heads/main ] && echo \"$new\" > " + fifo + "\ndone\nexit 0\n"
	if err := os.WriteFile(filepath.Join(bare, "hooks", "post-receive"), []byte(hook), 0o755); err != nil {
		tb.Fatal(err)
	}
}

// apiRequests are the API server's own counts of requests for
// Applications (apiserver_request_total), whoever made them.
type apiRequests struct{ list, watch int }

func apiCalls(b *testing.B, cfg *rest.Config) apiRequests {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	data, err := dc.RESTClient().Get().AbsPath("/metrics").DoRaw(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	var n apiRequests
	for line := range strings.SplitSeq(string(data), "\n") {
		if !strings.HasPrefix(line, "apiserver_request_total{") || !strings.Contains(line, `resource="applications"`) {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			continue
		}
		switch {
		case strings.Contains(line, `verb="LIST"`):
			n.list += int(v)
		case strings.Contains(line, `verb="WATCH"`):
			n.watch += int(v)
		}
	}
	return n
}
