package webhook_test

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/strata-fleet/strata/internal/webhook"
)

const secret = "s3cret-for-tests"

var push = `{"ref":"refs/heads/main","after":"0123456789abcdef0123456789abcdef01234567"}`

func sign(key, body string) string {
	mac := hmac.New(sha256.New, []byte(key))
	mac.Write([]byte(body))
	return hex.EncodeToString(mac.Sum(nil))
}

// request is one request to the handler: headers and body.
type request struct {
	headers map[string]string
	body    string
}

func github(id, event, body string) request {
	return request{map[string]string{"X-GitHub-Event": event, "X-GitHub-Delivery": id,
		"X-Hub-Signature-256": "sha256=" + sign(secret, body)}, body}
}

func (r request) with(k, v string) request {
	h := map[string]string{}
	for hk, hv := range r.headers {
		h[hk] = hv
	}
	if v == "" {
		delete(h, k)
	} else {
		h[k] = v
	}
	return request{h, r.body}
}

// TestHandler: each request alone on a fresh handler, what it answers and
// whether the runner is woken.
func TestHandler(t *testing.T) {
	for _, tc := range []struct {
		name   string
		req    request
		code   int
		result string
	}{
		{"a GitHub push signed wakes the runner", github("d1", "push", push), http.StatusAccepted, webhook.ResultPush},
		{"a GitHub ping signed does nothing", github("d1", "ping", `{"zen":"x"}`), http.StatusAccepted, webhook.ResultIgnored},
		{"a GitLab push with the token wakes the runner", request{map[string]string{"X-Gitlab-Event": "Push Hook",
			"X-Gitlab-Event-UUID": "u1", "X-Gitlab-Token": secret}, push}, http.StatusAccepted, webhook.ResultPush},
		{"a GitLab tag push does nothing", request{map[string]string{"X-Gitlab-Event": "Tag Push Hook",
			"X-Gitlab-Event-UUID": "u1", "X-Gitlab-Token": secret}, push}, http.StatusAccepted, webhook.ResultIgnored},
		{"a Gitea push signed wakes the runner", request{map[string]string{"X-Gitea-Event": "push", "X-Gitea-Delivery": "g1",
			"X-Gitea-Signature": sign(secret, push)}, push}, http.StatusAccepted, webhook.ResultPush},
		{"a Forgejo push signed (Gitea's headers too) wakes the runner", request{map[string]string{"X-Forgejo-Event": "push",
			"X-Forgejo-Delivery": "f1", "X-Forgejo-Signature": sign(secret, push), "X-Gitea-Event": "push", "X-Gitea-Delivery": "f1",
			"X-Gitea-Signature": sign(secret, push), "X-Hub-Signature-256": "sha256=" + sign(secret, push)}, push},
			http.StatusAccepted, webhook.ResultPush},

		{"unsigned is refused", github("d1", "push", push).with("X-Hub-Signature-256", ""), http.StatusUnauthorized, webhook.ResultUnsigned},
		{"signed with another secret is refused", github("d1", "push", push).with("X-Hub-Signature-256", "sha256="+sign("other", push)),
			http.StatusUnauthorized, webhook.ResultForged},
		{"a body changed after signing is refused", request{github("d1", "push", push).headers, strings.Replace(push, "main", "evil", 1)},
			http.StatusUnauthorized, webhook.ResultForged},
		{"a signature without sha256= is refused", github("d1", "push", push).with("X-Hub-Signature-256", sign(secret, push)),
			http.StatusBadRequest, webhook.ResultMalformed},
		{"a SHA-1 signature is refused", github("d1", "push", push).with("X-Hub-Signature-256", "sha1=0123"),
			http.StatusBadRequest, webhook.ResultMalformed},
		{"one good and one forged signature is refused", github("d1", "push", push).with("X-Gitea-Signature", sign("other", push)),
			http.StatusUnauthorized, webhook.ResultForged},
		{"a GitLab token that differs is refused", request{map[string]string{"X-Gitlab-Event": "Push Hook",
			"X-Gitlab-Event-UUID": "u1", "X-Gitlab-Token": secret + "x"}, push}, http.StatusUnauthorized, webhook.ResultForged},
		{"an empty GitLab token is refused", request{map[string]string{"X-Gitlab-Event": "Push Hook",
			"X-Gitlab-Event-UUID": "u1", "X-Gitlab-Token": ""}, push}, http.StatusBadRequest, webhook.ResultMalformed},
		{"a signed push without a delivery ID is refused", github("d1", "push", push).with("X-GitHub-Delivery", ""),
			http.StatusBadRequest, webhook.ResultMalformed},
		{"a body over the limit is refused", github("d1", "push", strings.Repeat("x", webhook.DefaultMaxBody+1)),
			http.StatusRequestEntityTooLarge, webhook.ResultOversized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var woken atomic.Int64
			h, err := webhook.New([]byte(secret), func(context.Context) (bool, error) { woken.Add(1); return false, nil }, webhook.Options{})
			if err != nil {
				t.Fatal(err)
			}
			code, body := serve(h, tc.req, false)
			if code != tc.code {
				t.Errorf("answered %d %q, want %d", code, body, tc.code)
			}
			if got := counted(t, h, tc.result); got != 1 {
				t.Errorf("strata_webhook_requests_total{result=%q} = %v, want 1 (answer %q)", tc.result, got, body)
			}
			if want := int64(0); tc.result == webhook.ResultPush {
				want = 1
				if woken.Load() != want {
					t.Errorf("woke the runner %d times, want once", woken.Load())
				}
			} else if woken.Load() != want {
				t.Errorf("woke the runner %d times, want never", woken.Load())
			}
		})
	}
}

// TestChunkedOversizedBody: a body over the limit without a
// Content-Length is refused as it is read.
func TestChunkedOversizedBody(t *testing.T) {
	var woken atomic.Int64
	h, err := webhook.New([]byte(secret), func(context.Context) (bool, error) { woken.Add(1); return false, nil }, webhook.Options{MaxBody: 64})
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Repeat("y", 65)
	code, msg := serve(h, github("d1", "push", body), true)
	if code != http.StatusRequestEntityTooLarge || woken.Load() != 0 {
		t.Errorf("answered %d %q, woke %d times; want 413 and no wake", code, msg, woken.Load())
	}
}

// TestReplay: a delivery taken once is refused after, even with its
// signature intact; a forged request never takes an ID from a real one.
func TestReplay(t *testing.T) {
	var woken atomic.Int64
	h, err := webhook.New([]byte(secret), func(context.Context) (bool, error) { woken.Add(1); return false, nil }, webhook.Options{})
	if err != nil {
		t.Fatal(err)
	}
	forged := github("d1", "push", push).with("X-Hub-Signature-256", "sha256="+sign("other", push))
	for i, want := range []struct {
		req  request
		code int
	}{
		{forged, http.StatusUnauthorized},
		{github("d1", "push", push), http.StatusAccepted},
		{github("d1", "push", push), http.StatusConflict},
		{github("d2", "push", push), http.StatusAccepted},
	} {
		if code, msg := serve(h, want.req, false); code != want.code {
			t.Errorf("request %d: answered %d %q, want %d", i, code, msg, want.code)
		}
	}
	if woken.Load() != 2 {
		t.Errorf("woke the runner %d times, want 2 (d1 once, d2)", woken.Load())
	}
}

func serve(h http.Handler, r request, chunked bool) (int, string) {
	var body io.Reader = strings.NewReader(r.body)
	if chunked {
		body = io.MultiReader(body) // no length known: sent chunked
	}
	req := httptest.NewRequest(http.MethodPost, "/webhook", body)
	if chunked {
		req.ContentLength = -1
	}
	for k, v := range r.headers {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

func counted(t *testing.T, h *webhook.Handler, result string) float64 {
	t.Helper()
	c, err := h.Collectors()[0].(*prometheus.CounterVec).GetMetricWithLabelValues(result)
	if err != nil {
		t.Fatal(err)
	}
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

// TestSlowRequests: through the Handler's server, a client that stops
// sending its headers or its body is cut off by the read timeouts, and
// the runner is not woken.
func TestSlowRequests(t *testing.T) {
	var woken atomic.Int64
	h, err := webhook.New([]byte(secret), func(context.Context) (bool, error) { woken.Add(1); return false, nil },
		webhook.Options{ReadTimeout: 300 * time.Millisecond, ReadHeaderTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := h.Server()
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	r := github("slow", "push", push)
	var head strings.Builder
	head.WriteString("POST /webhook HTTP/1.1\r\nHost: strata\r\nContent-Type: application/json\r\n")
	for k, v := range r.headers {
		head.WriteString(k + ": " + v + "\r\n")
	}
	for _, tc := range []struct{ name, sent string }{
		{"headers never finished", "POST /webhook HTTP/1.1\r\nHost: strata\r\nX-GitHub-Event: pu"},
		{"body never finished", head.String() + "Content-Length: " + strconv.Itoa(len(r.body)) + "\r\n\r\n" + r.body[:10]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := io.WriteString(c, tc.sent); err != nil {
				t.Fatal(err)
			}
			// The test's own deadline, far past the server's timeouts: the
			// server must end the request before it.
			_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode < 400 {
					t.Errorf("answered %s, want a refusal or the connection closed", resp.Status)
				}
			} else if ne := net.Error(nil); errors.As(err, &ne) && ne.Timeout() {
				t.Fatalf("the server still held the connection after 30 s: %v", err)
			}
		})
	}
	if woken.Load() != 0 {
		t.Errorf("woke the runner %d times, want never", woken.Load())
	}
}

// TestStandby: a runner that stands by hands a signed push to the leader
// (202, relayed); when it cannot, it refuses the push with 503 and keeps
// no record of it: the same delivery, sent again, is taken.
func TestStandby(t *testing.T) {
	reachable := false
	var relayed atomic.Int64
	h, err := webhook.New([]byte(secret), func(ctx context.Context) (bool, error) {
		if _, ok := ctx.Deadline(); !ok {
			t.Error("the wake's context has no deadline")
		}
		if !reachable {
			return false, errors.New("the Lease is out of reach")
		}
		relayed.Add(1)
		return true, nil
	}, webhook.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if code, msg := serve(h, github("d1", "push", push), false); code != http.StatusServiceUnavailable || !strings.Contains(msg, "the Lease is out of reach") {
		t.Errorf("standing by, the Lease out of reach: answered %d %q, want 503 saying why", code, msg)
	}
	reachable = true
	if code, msg := serve(h, github("d1", "push", push), false); code != http.StatusAccepted || relayed.Load() != 1 {
		t.Errorf("standing by: answered %d %q and relayed %d times, want 202 and once", code, msg, relayed.Load())
	}
	if got := counted(t, h, webhook.ResultStandby); got != 1 {
		t.Errorf("strata_webhook_requests_total{result=standby} = %v, want 1", got)
	}
	if got := counted(t, h, webhook.ResultRelayed); got != 1 {
		t.Errorf("strata_webhook_requests_total{result=relayed} = %v, want 1", got)
	}
}
