//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/strata-fleet/strata/internal/notify"
)

// notifyReceiver is a local webhook that the delivery scenario's
// config.yaml notifies of every step event, beside one that is dead (a
// closed port): the scenario's rollouts run as they do without it.
type notifyReceiver struct {
	srv  *httptest.Server
	mu   sync.Mutex
	msgs []notify.Message
	bad  []string
}

// withNotifications is config with notifications: to a receiver it
// returns, and to a dead one.
func withNotifications(t *testing.T, config string) (string, *notifyReceiver) {
	r := &notifyReceiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		var m notify.Message
		r.mu.Lock()
		defer r.mu.Unlock()
		if err := json.Unmarshal(b, &m); err != nil {
			r.bad = append(r.bad, string(b))
		} else {
			r.msgs = append(r.msgs, m)
		}
	}))
	t.Cleanup(r.srv.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String() + "/hook"
	ln.Close() // nothing listens there: every post is refused
	return config + fmt.Sprintf(`notifications:
  - name: receiver
    webhook: {url: %q}
  - name: dead
    webhook: {url: %q}
`, r.srv.URL+"/hook", dead), r
}

// check compares what the receiver got with what the scenario did since
// base: a started event for each step strata pushed (the commits with its
// Strata-Rollout trailer), healthy for each of them but the failed one
// (and for a first step committed by hand), the freeze's
// hold, beyond the budget the one failure, and a folded event for each
// patch folded; no gate or revert, which the scenario does not produce.
func (r *notifyReceiver) check(t *testing.T, e *Env, base string) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.bad) > 0 {
		t.Errorf("the receiver got bodies that are not a notification: %q", r.bad)
	}
	by := map[string][]notify.Message{}
	for _, m := range r.msgs {
		by[m.Event] = append(by[m.Event], m)
	}
	commits := func(ms []notify.Message) []string {
		var out []string
		for _, m := range ms {
			out = append(out, shortSHA(m.Commit))
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	var pushed []string // the steps strata made: each carries its Strata-Rollout trailer
	for _, sha := range strings.Fields(e.Repo.Git("log", "--format=%H", "--grep=^Strata-Rollout: ", base+"..HEAD")) {
		pushed = append(pushed, shortSHA(sha))
	}
	slices.Sort(pushed)
	if got := commits(by["started"]); !slices.Equal(got, pushed) {
		t.Errorf("started for the commits %v, want the steps pushed %v", got, pushed)
	}
	if len(by["failed"]) != 1 || by["failed"][0].Patch != "spoke/web/patch-003" {
		t.Errorf("failed: %+v, want one, of spoke/web/patch-003", by["failed"])
	} else {
		// Healthy: every step pushed but the failed one, and a first step
		// committed by hand that a rollout waited for; nothing else.
		failed := shortSHA(by["failed"][0].Commit)
		healthy := commits(by["healthy"])
		history := strings.Fields(e.Repo.Git("log", "--format=%H", base+"..HEAD"))
		for _, c := range pushed {
			if c != failed && !slices.Contains(healthy, c) {
				t.Errorf("no healthy event for the step %s (healthy: %v)", c, healthy)
			}
		}
		for _, c := range healthy {
			if c == failed || !slices.ContainsFunc(history, func(h string) bool { return strings.HasPrefix(h, c) }) {
				t.Errorf("a healthy event for %s, the failed step or no commit of the scenario", c)
			}
		}
	}
	if len(by["frozen"]) == 0 || !strings.Contains(by["frozen"][0].Text, "INC-7") || by["frozen"][0].Patch != "spoke/demo/patch-002" {
		t.Errorf("frozen: %+v, want the hold of spoke/demo/patch-002 by the freeze INC-7", by["frozen"])
	}
	var folded []string
	for _, m := range by["folded"] {
		folded = append(folded, m.Patch)
	}
	slices.Sort(folded)
	if want := []string{"spoke/demo/patch-001", "spoke/demo/patch-002", "spoke/web/patch-001"}; !slices.Equal(folded, want) {
		t.Errorf("folded: %v, want %v", folded, want)
	}
	for _, kind := range []string{"gated", "reverted"} {
		if len(by[kind]) > 0 {
			t.Errorf("%s events the scenario does not produce: %+v", kind, by[kind])
		}
	}
}

func shortSHA(s string) string { return s[:min(len(s), 12)] }
