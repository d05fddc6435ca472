package cli_test

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/strata-fleet/strata/internal/cli"
	"github.com/strata-fleet/strata/internal/localstate"
)

var update = flag.Bool("update", false, "rewrite the scripts' expected output (cmp files) from what strata prints")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"strata": func() { os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr)) },
		// strata-killswitch N ARGS... is strata ARGS... killed (SIGKILL)
		// before step N of a render's switch, when N steps are done.
		"strata-killswitch": func() {
			n, err := strconv.Atoi(os.Args[1])
			if err != nil {
				fmt.Fprintln(os.Stderr, "usage: strata-killswitch N ARGS...")
				os.Exit(2)
			}
			steps := 0
			cli.SetSwitchingHook(func(string) {
				if steps == n {
					syscall.Kill(os.Getpid(), syscall.SIGKILL)
					select {} // until the signal arrives
				}
				steps++
			})
			os.Exit(cli.Main(os.Args[2:], os.Stdout, os.Stderr))
		},
	})
}

// TestScripts runs the end-to-end scenarios in testdata/script, one per
// behaviour of the command line. Refresh their expected output with
// go test ./internal/cli -run TestScripts -update.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           filepath.Join("testdata", "script"),
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			// The render state goes to the scenario's own directory, never
			// to the user's cache.
			env.Setenv("STRATA_CACHE_DIR", filepath.Join(env.WorkDir, ".cache"))
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"mtime":      cmdMtime,
			"waitfor":    cmdWaitfor,
			"localstate": cmdLocalstate,
			"helmchart":  cmdHelmchart,
			// script_net_test.go
			"faultserver": cmdFaultServer,
			"within":      cmdWithin,
			"webget":      cmdWebget,
			"webhookpost": cmdWebhookpost,
			// script_record_test.go
			"record": cmdRecord,
			// script_alert_test.go
			"alertserver": cmdAlertServer,
		},
	})
}

// cmdMtime sets or checks modification times, so that a scenario can tell
// that a run rewrote nothing:
//
//	mtime reset FILE...   set FILE's modification time to a fixed time in the past
//	mtime same FILE...    fail unless FILE still has that time
func cmdMtime(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 || (args[0] != "reset" && args[0] != "same") {
		ts.Fatalf("usage: mtime reset|same FILE...")
	}
	past := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	for _, name := range args[1:] {
		p := ts.MkAbs(name)
		if args[0] == "reset" {
			ts.Check(os.Chtimes(p, past, past))
			continue
		}
		info, err := os.Stat(p)
		ts.Check(err)
		if same := info.ModTime().Equal(past); same == neg {
			ts.Fatalf("%s: modified at %s (reset to %s)", name, info.ModTime().UTC().Format(time.RFC3339), past.Format(time.RFC3339))
		}
	}
}

// waitforDeadline bounds waitfor: long enough for a loaded machine, short
// enough that a server that never says it listens fails the scenario.
const waitforDeadline = time.Minute

// cmdWaitfor waits until a file has a line matching a regular expression, so
// that a scenario acts on a background process only once it has said it is
// ready (a background command's own output is readable only after it ends):
//
//	waitfor FILE REGEXP
//
// It looks at the file every few milliseconds and fails after waitforDeadline
// with what the file holds.
func cmdWaitfor(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitfor FILE REGEXP")
	}
	re, err := regexp.Compile("(?m)" + args[1])
	ts.Check(err)
	name := ts.MkAbs(args[0])
	deadline := time.NewTimer(waitforDeadline)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		data, err := os.ReadFile(name)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			ts.Fatalf("%v", err)
		}
		if re.Match(data) {
			return
		}
		select {
		case <-tick.C:
		case <-deadline.C:
			ts.Fatalf("%s: no line matches %q after %s; it holds:\n%s", args[0], args[1], waitforDeadline, data)
		}
	}
}

// cmdLocalstate reaches the local state (package localstate) of the
// repository in the current directory, which lives outside it, so that a
// scenario can place or look for strata's per-checkout files:
//
//	localstate put NAME FILE   write FILE's content to NAME there
//	localstate exists NAME     fail unless NAME is there (with !: if it is)
func cmdLocalstate(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 || (args[0] == "put") != (len(args) == 3) || (args[0] != "put" && args[0] != "exists") {
		ts.Fatalf("usage: localstate put NAME FILE | localstate exists NAME")
	}
	key, err := localstate.Key(ts.MkAbs("."))
	ts.Check(err)
	p := filepath.Join(ts.Getenv("STRATA_CACHE_DIR"), "repos", key, args[1])
	if args[0] == "put" {
		if neg {
			ts.Fatalf("unsupported: ! localstate put")
		}
		data, err := os.ReadFile(ts.MkAbs(args[2]))
		ts.Check(err)
		ts.Check(os.MkdirAll(filepath.Dir(p), 0o755))
		ts.Check(os.WriteFile(p, data, 0o644))
		return
	}
	_, err = os.Stat(p)
	if exists := err == nil; exists == neg {
		ts.Fatalf("%s in the local state: exists %v", args[1], exists)
	}
}
