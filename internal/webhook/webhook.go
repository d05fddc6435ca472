package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// DefaultMaxBody is the largest body a request may have (1 MiB). A push
// event lists at most 20 commits (GitHub, Gitea) and is a few tens of KiB;
// a push refused for its size is still fetched at the runner's next
// --interval.
const DefaultMaxBody = 1 << 20

// deliveries is how many delivery IDs a Handler remembers to refuse
// replays: the oldest are forgotten first.
const deliveries = 4096

// Results of a request, the label of strata_webhook_requests_total.
const (
	ResultPush      = "push"      // a signed push: the runner fetches
	ResultIgnored   = "ignored"   // a signed event that is not a push (ping, ...)
	ResultUnsigned  = "unsigned"  // no signature header
	ResultForged    = "forged"    // a signature that does not verify
	ResultReplayed  = "replayed"  // a delivery ID seen before
	ResultMalformed = "malformed" // no delivery ID, or a signature not in its form
	ResultOversized = "oversized" // a body over the limit
	ResultUnread    = "unread"    // the body could not be read in time
	ResultRelayed   = "relayed"   // a signed push to a runner that stands by, handed to the leader
	ResultStandby   = "standby"   // a signed push to a runner that stands by and could not hand it on
)

var results = []string{ResultPush, ResultIgnored, ResultUnsigned, ResultForged, ResultReplayed, ResultMalformed,
	ResultOversized, ResultUnread, ResultRelayed, ResultStandby}

// Options tune a Handler.
type Options struct {
	// MaxBody is the largest body taken (default DefaultMaxBody).
	MaxBody int64
	// ReadTimeout bounds reading a request, headers and body, and
	// ReadHeaderTimeout its headers (defaults 10 s and 5 s): a client
	// that sends slowly is cut off (Server).
	ReadTimeout, ReadHeaderTimeout time.Duration
}

// A Wake is told of each signed push, and returns within ctx: nil when
// this runner fetches at once, relayed when it stands by and handed the
// push to the leader (package runner's Relay), an error when it could do
// neither.
type Wake func(ctx context.Context) (relayed bool, err error)

// relayTimeout bounds a Wake: the request's answer waits for it.
const relayTimeout = 5 * time.Second

// Handler verifies push events and wakes the runner.
type Handler struct {
	secret []byte
	wake   Wake
	opts   Options

	mu    sync.Mutex
	seen  map[string]bool
	order []string // seen's IDs, oldest first

	requests *prometheus.CounterVec
}

// New returns a Handler that checks requests against secret and calls
// wake for each signed push. When wake fails (a runner that stands by and
// cannot reach the Lease) the push is refused with 503, its delivery ID
// not recorded, so that the Git host shows it failed and its redelivery
// is taken.
func New(secret []byte, wake Wake, o Options) (*Handler, error) {
	if len(secret) == 0 {
		return nil, errors.New("webhook: an empty secret")
	}
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	if o.ReadTimeout <= 0 {
		o.ReadTimeout = 10 * time.Second
	}
	if o.ReadHeaderTimeout <= 0 {
		o.ReadHeaderTimeout = 5 * time.Second
	}
	h := &Handler{secret: bytes.Clone(secret), wake: wake, opts: o, seen: map[string]bool{},
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "strata_webhook_requests_total",
			Help: "Webhook requests by result: push (a signed push: the runner fetches), relayed (a signed push handed to the leader), standby (one that could not be), ignored, unsigned, forged, replayed, malformed, oversized, unread."},
			[]string{"result"})}
	for _, r := range results {
		h.requests.WithLabelValues(r)
	}
	return h, nil
}

// ReadSecret reads the shared secret from path: the file's content
// without the line break that ends it. An empty secret is an error.
func ReadSecret(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the webhook secret: %w", err)
	}
	b = bytes.TrimRight(b, "\r\n")
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, fmt.Errorf("the webhook secret %s is empty", path)
	}
	return b, nil
}

// Collectors are the Handler's metrics, for the runner's registry.
func (h *Handler) Collectors() []prometheus.Collector { return []prometheus.Collector{h.requests} }

// Server serves h at POST /webhook (and nothing else) with its read
// timeouts, so that a slow client holds no connection for long.
func (h *Handler) Server() *http.Server {
	mux := http.NewServeMux()
	mux.Handle("POST /webhook", h)
	return &http.Server{Handler: mux, ReadHeaderTimeout: h.opts.ReadHeaderTimeout, ReadTimeout: h.opts.ReadTimeout,
		WriteTimeout: h.opts.ReadTimeout + 5*time.Second, IdleTimeout: time.Minute, MaxHeaderBytes: 64 << 10}
}

// ServeHTTP takes one request (see the package's doc).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	result, code, msg := h.take(w, r)
	h.requests.WithLabelValues(result).Inc()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	_, _ = io.WriteString(w, msg+"\n")
}

// take judges r and, for a signed push, wakes the runner; it returns the
// result and what to answer.
func (h *Handler) take(w http.ResponseWriter, r *http.Request) (result string, code int, msg string) {
	sigs := signatures(r.Header)
	if len(sigs) == 0 {
		return ResultUnsigned, http.StatusUnauthorized, "unsigned: want X-Hub-Signature-256, X-Gitea-Signature, X-Forgejo-Signature or X-Gitlab-Token"
	}
	if r.ContentLength > h.opts.MaxBody {
		return ResultOversized, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is over %d bytes", h.opts.MaxBody)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBody))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return ResultOversized, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is over %d bytes", h.opts.MaxBody)
	case err != nil:
		return ResultUnread, http.StatusBadRequest, "the body could not be read"
	}
	for _, s := range sigs {
		ok, err := s.verify(h.secret, body)
		if err != nil {
			return ResultMalformed, http.StatusBadRequest, s.header + ": " + err.Error()
		}
		if !ok {
			return ResultForged, http.StatusUnauthorized, s.header + " does not match"
		}
	}
	id := delivery(r.Header)
	if id == "" {
		return ResultMalformed, http.StatusBadRequest, "no delivery ID: want X-GitHub-Delivery, X-Gitlab-Event-UUID, X-Gitea-Delivery or X-Forgejo-Delivery"
	}
	if !h.first(id) {
		return ResultReplayed, http.StatusConflict, "delivery " + id + " was taken before"
	}
	if !isPush(r.Header) {
		return ResultIgnored, http.StatusAccepted, "not a push: nothing to do"
	}
	ctx, cancel := context.WithTimeout(r.Context(), relayTimeout)
	defer cancel()
	relayed, err := h.wake(ctx)
	switch {
	case err != nil:
		h.forget(id)
		return ResultStandby, http.StatusServiceUnavailable, "this runner stands by and could not hand the push to the leader: " + err.Error()
	case relayed:
		return ResultRelayed, http.StatusAccepted, "handed to the leader: fetching"
	}
	return ResultPush, http.StatusAccepted, "fetching"
}

// first records delivery id and reports whether it is new.
func (h *Handler) first(id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.seen[id] {
		return false
	}
	h.seen[id] = true
	h.order = append(h.order, id)
	if len(h.order) > deliveries {
		delete(h.seen, h.order[0])
		h.order = h.order[1:]
	}
	return true
}

// forget takes back first(id): a push this runner did not act on.
func (h *Handler) forget(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.seen, id) // its place in order stays, and is dropped in turn
}

// signature is one signature header of a request.
type signature struct {
	header, value string
	// token: the header holds the secret itself (GitLab); else the hex
	// HMAC-SHA256 of the body, after prefix.
	token  bool
	prefix string
}

// signatures are the signature headers r carries.
func signatures(h http.Header) []signature {
	var out []signature
	for _, s := range []signature{
		{header: "X-Hub-Signature-256", prefix: "sha256="},
		{header: "X-Gitea-Signature"},
		{header: "X-Forgejo-Signature"},
		{header: "X-Gitlab-Token", token: true},
	} {
		if vs := h.Values(s.header); len(vs) > 0 {
			s.value = vs[0]
			if len(vs) > 1 {
				s.value = "" // two values: malformed, never one of them
			}
			out = append(out, s)
		}
	}
	return out
}

// verify reports whether s signs body with secret; an error when s is not
// in its header's form.
func (s signature) verify(secret, body []byte) (bool, error) {
	if s.token {
		if s.value == "" {
			return false, errors.New("empty")
		}
		return subtle.ConstantTimeCompare([]byte(s.value), secret) == 1, nil
	}
	hexsum, ok := strings.CutPrefix(s.value, s.prefix)
	got, err := hex.DecodeString(hexsum)
	if !ok || err != nil || len(got) != sha256.Size {
		return false, fmt.Errorf("want %s and 64 hexadecimal digits", s.prefix)
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return hmac.Equal(got, mac.Sum(nil)), nil
}

// delivery is the request's delivery ID, the first of the services'
// headers it carries, with the header's name: IDs of two services never
// collide.
func delivery(h http.Header) string {
	for _, name := range []string{"X-GitHub-Delivery", "X-Gitlab-Event-UUID", "X-Gitea-Delivery", "X-Forgejo-Delivery"} {
		if v := strings.TrimSpace(h.Get(name)); v != "" {
			return name + ":" + v
		}
	}
	return ""
}

// isPush reports whether the request's event is a push.
func isPush(h http.Header) bool {
	for _, name := range []string{"X-GitHub-Event", "X-Gitea-Event", "X-Forgejo-Event"} {
		if v := h.Get(name); v != "" {
			return v == "push"
		}
	}
	return h.Get("X-Gitlab-Event") == "Push Hook"
}
