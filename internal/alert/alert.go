package alert

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"
)

// DefaultTimeout bounds a call when Client.Timeout is not set.
const DefaultTimeout = 10 * time.Second

// Alert is one alert that fires in Alertmanager, or one sample a
// Prometheus query returned.
type Alert struct {
	// Name is the alertname label (or, for a sample, its metric name).
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels,omitempty"`
	// Summary is the alert's summary (or description) annotation.
	Summary string `json:"summary,omitempty"`
	// Since is when it started firing (zero for a sample).
	Since time.Time `json:"since,omitzero"`
	// Value is a sample's value ("" for an Alertmanager alert).
	Value string `json:"value,omitempty"`
}

// String names the alert as Prometheus prints a series, with its value or
// its summary: `HighErrorRate{cluster="w1", severity="critical"}: 5xx above 1%`.
func (a Alert) String() string {
	s := a.Name
	keys := slices.Sorted(maps.Keys(a.Labels))
	var ls []string
	for _, k := range keys {
		if k != "alertname" && k != "__name__" {
			ls = append(ls, fmt.Sprintf("%s=%q", k, a.Labels[k]))
		}
	}
	if len(ls) > 0 {
		s += "{" + strings.Join(ls, ", ") + "}"
	}
	switch {
	case a.Value != "":
		s += " = " + a.Value
	case a.Summary != "":
		s += ": " + a.Summary
	}
	return s
}

// Describe lists alerts in one line: the first few, then how many more.
func Describe(alerts []Alert) string {
	const show = 3
	var parts []string
	for i, a := range alerts {
		if i == show {
			parts = append(parts, fmt.Sprintf("and %d more", len(alerts)-show))
			break
		}
		parts = append(parts, a.String())
	}
	return strings.Join(parts, "; ")
}

// MaxAnswer is the largest answer a call reads when Client.MaxAnswer is
// not set: a server that answers more is unreadable, not read in part.
const MaxAnswer = 8 << 20

// Client is what a call goes through: an HTTP client (nil: one that
// follows no redirect off the server, see sameOrigin), the deadline of
// each call and the size of the largest answer it reads.
type Client struct {
	HTTP      *http.Client
	Timeout   time.Duration
	MaxAnswer int64
}

func (c Client) http() *http.Client {
	hc := &http.Client{CheckRedirect: sameOrigin}
	if c.HTTP != nil {
		copied := *c.HTTP
		hc = &copied
	}
	next := hc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	hc.Transport = capped{next: next, max: c.maxAnswer()}
	return hc
}

func (c Client) maxAnswer() int64 {
	if c.MaxAnswer > 0 {
		return c.MaxAnswer
	}
	return MaxAnswer
}

// capped is a transport whose answers' bodies fail to read past max bytes
// (errTooLarge), so that no client, Prometheus's included, reads an
// answer of any size into memory.
type capped struct {
	next http.RoundTripper
	max  int64
}

func (c capped) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.ContentLength > c.max {
		resp.Body.Close()
		return nil, tooLarge(c.max)
	}
	resp.Body = &cappedBody{ReadCloser: resp.Body, left: c.max, max: c.max}
	return resp, nil
}

func tooLarge(limit int64) error {
	return fmt.Errorf("the answer is larger than %d bytes, more than any list of alerts or samples a rollout reads", limit)
}

// cappedBody reads at most left bytes, then fails with tooLarge.
type cappedBody struct {
	io.ReadCloser
	left int64
	max  int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells an answer of exactly max bytes from a longer one.
		var one [1]byte
		n, err := b.ReadCloser.Read(one[:])
		if n > 0 {
			return 0, tooLarge(b.max)
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

// sameOrigin refuses a redirect to another scheme, host or port, as
// kube.Secure does for API servers: a URL of config.yaml may carry a
// password (https://user:pass@...), and a server that redirects elsewhere
// is not the one the fleet named.
func sameOrigin(req *http.Request, via []*http.Request) error {
	from := via[0].URL
	if req.URL.Scheme != from.Scheme || !strings.EqualFold(req.URL.Host, from.Host) {
		return fmt.Errorf("redirected to %s: strata follows no redirect to another scheme, host or port", redacted(req.URL.String()))
	}
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	return nil
}

// userinfo is what stands between "//" and "@" in u (user:password), or "".
func userinfo(u string) string {
	if i, j := strings.Index(u, "//"), strings.LastIndex(u, "@"); i >= 0 && j > i {
		return u[i+2 : j]
	}
	return ""
}

// hidden is err with the user information of base (its password) taken
// out of an *Error's message: url's and Prometheus's client's errors quote
// the URL.
func hidden(err error, base string) error {
	var e *Error
	if ui := userinfo(base); ui != "" && errors.As(err, &e) {
		e.Message = strings.ReplaceAll(e.Message, ui, "xxxxx")
	}
	return err
}

// redacted is u with its password, if any, replaced by "xxxxx": the
// servers named in errors and events.
func redacted(u string) string {
	p, err := url.Parse(u)
	if err == nil {
		return p.Redacted()
	}
	// Not a URL: whatever stands between "//" and "@" goes.
	if ui := userinfo(u); ui != "" {
		return strings.Replace(u, ui, "xxxxx", 1)
	}
	return u
}

func (c Client) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

// Error is a call that failed: the server, and what it said.
type Error struct {
	// Server names it: "Alertmanager http://...", "Prometheus http://...".
	Server string
	// Status is the HTTP status (0 when there was no answer).
	Status int
	// Message is the server's own message, or why there was none.
	Message string
}

func (e *Error) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("%s: %d %s: %s", e.Server, e.Status, http.StatusText(e.Status), e.Message)
	}
	return fmt.Sprintf("%s: %s", e.Server, e.Message)
}

// sortAlerts orders alerts by name, then labels, so that messages are
// stable.
func sortAlerts(as []Alert) {
	sort.SliceStable(as, func(i, j int) bool {
		if as[i].Name != as[j].Name {
			return as[i].Name < as[j].Name
		}
		return as[i].String() < as[j].String()
	})
}
