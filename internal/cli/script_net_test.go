package cli_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdFaultServer starts an API server (TLS, on 127.0.0.1) that
// misbehaves, for the scenario's lifetime, and writes a kubeconfig whose
// context NAME reaches it (with a token, as a real one would):
//
//	faultserver MODE KUBECONFIG NAME
//
// MODE is hang (read each request, never answer), trickle (answer a list
// a byte at a time, without end), reset (reset the connection), error500
// (answer 500 with an empty body), pages (answer a list with a new
// continue token each time, without end).
func cmdFaultServer(ts *testscript.TestScript, neg bool, args []string) {
	modes := map[string]http.HandlerFunc{"hang": nil, "trickle": nil, "reset": faultReset, "error500": fault500, "pages": faultPages}
	if _, ok := modes[args0(args)]; neg || len(args) != 3 || !ok {
		ts.Fatalf("usage: faultserver hang|trickle|reset|error500|pages KUBECONFIG NAME")
	}
	stop := make(chan struct{})
	trickle := args[0] == "trickle"
	handler := modes[args[0]]
	if handler == nil {
		handler = func(w http.ResponseWriter, r *http.Request) {
			tick := time.NewTicker(100 * time.Millisecond)
			defer tick.Stop()
			if trickle {
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, `{"kind":"ApplicationList","items":[`)
			}
			for {
				if trickle {
					fmt.Fprint(w, " ")
					w.(http.Flusher).Flush()
				}
				select {
				case <-r.Context().Done():
					return
				case <-stop:
					return
				case <-tick.C:
				}
			}
		}
	}
	srv := httptest.NewTLSServer(handler)
	ts.Defer(func() {
		close(stop)
		srv.CloseClientConnections()
		srv.Close()
	})
	kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: %[1]s
  cluster: {server: "%[2]s", insecure-skip-tls-verify: true}
users:
- name: %[1]s
  user: {token: a-token-that-stays-here}
contexts:
- name: %[1]s
  context: {cluster: %[1]s, user: %[1]s}
current-context: %[1]s
`, args[2], srv.URL)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(kc), 0o600))
}

// cmdWithin runs a program of the scenario as exec does, and fails the
// scenario unless it ends within DURATION (then it is killed): for the
// commands that must end by a deadline of their own whatever a server
// does. Its output is the scenario's stdout and stderr.
//
//	[!] within DURATION PROG ARGS...
func cmdWithin(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: within DURATION PROG ARGS...")
	}
	limit, err := time.ParseDuration(args[0])
	ts.Check(err)
	cmd := exec.Command(lookPath(ts, args[1]), args[2:]...)
	cmd.Dir = ts.MkAbs(".")
	cmd.Env = os.Environ()
	for _, k := range []string{"PATH", "HOME", "WORK", "TMPDIR", "STRATA_CACHE_DIR", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"} {
		if v := ts.Getenv(k); v != "" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	ts.Check(cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case err = <-done:
	case <-timer.C:
		_ = cmd.Process.Kill()
		<-done
		ts.Fatalf("%s did not end within %s\n[stdout]\n%s[stderr]\n%s", strings.Join(args[1:], " "), limit, stdout.String(), stderr.String())
	}
	fmt.Fprint(ts.Stdout(), stdout.String())
	fmt.Fprint(ts.Stderr(), stderr.String())
	switch {
	case err != nil && !neg:
		ts.Fatalf("unexpected command failure: %v", err)
	case err == nil && neg:
		ts.Fatalf("unexpected command success")
	}
}

// lookPath finds prog on the scenario's PATH.
func lookPath(ts *testscript.TestScript, prog string) string {
	for _, dir := range strings.Split(ts.Getenv("PATH"), string(os.PathListSeparator)) {
		p := dir + string(os.PathSeparator) + prog
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	ts.Fatalf("%s is not on the scenario's PATH", prog)
	return ""
}

func args0(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}

func faultReset(w http.ResponseWriter, r *http.Request) {
	c, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		return
	}
	if tc, ok := c.(interface{ NetConn() net.Conn }); ok {
		if t, ok := tc.NetConn().(*net.TCPConn); ok {
			_ = t.SetLinger(0)
		}
	}
	_ = c.Close()
}

func fault500(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusInternalServerError)
}

func faultPages(w http.ResponseWriter, r *http.Request) {
	var n int
	fmt.Sscan(r.URL.Query().Get("continue"), &n)
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"kind":"ApplicationList","apiVersion":"argoproj.io/v1alpha1","metadata":{"resourceVersion":"1","continue":"%d"},"items":[]}`, n+1)
}

// cmdWebget fetches PATH from the strata serve whose output FILE names
// its address ("serving ... on http://127.0.0.1:PORT") and writes the
// page to OUT; a status other than 200 fails:
//
//	webget FILE PATH OUT
func cmdWebget(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: webget FILE PATH OUT")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	addr := regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+`).Find(data)
	if addr == nil {
		ts.Fatalf("%s names no http://127.0.0.1 address; it holds:\n%s", args[0], data)
	}
	client := &http.Client{Timeout: time.Minute}
	resp, err := client.Get(string(addr) + args[1])
	ts.Check(err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	ts.Check(err)
	if resp.StatusCode != http.StatusOK {
		ts.Fatalf("GET %s: %s\n%s", args[1], resp.Status, body)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[2]), body, 0o644))
}

// cmdWebhookpost posts a push event signed as GitHub signs it to the
// rollout --watch whose stderr FILE names its webhook ("accepting push
// events on http://127.0.0.1:PORT/webhook"), with SECRET and the delivery
// ID DELIVERY; the answer's status code must be CODE:
//
//	webhookpost FILE SECRET DELIVERY CODE
func cmdWebhookpost(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: webhookpost FILE SECRET DELIVERY CODE")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	url := regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+/webhook`).Find(data)
	if url == nil {
		ts.Fatalf("%s names no webhook address; it holds:\n%s", args[0], data)
	}
	body := `{"ref":"refs/heads/main"}`
	mac := hmac.New(sha256.New, []byte(args[1]))
	mac.Write([]byte(body))
	req, err := http.NewRequest(http.MethodPost, string(url), strings.NewReader(body))
	ts.Check(err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", "push")
	req.Header.Set("X-GitHub-Delivery", args[2])
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := (&http.Client{Timeout: time.Minute}).Do(req)
	ts.Check(err)
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	if got := strconv.Itoa(resp.StatusCode); got != args[3] {
		ts.Fatalf("POST %s: %s %s, want %s", url, resp.Status, answer, args[3])
	}
}
