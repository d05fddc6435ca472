package kube

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"unicode"

	"k8s.io/client-go/rest"
)

// Secure returns a copy of cfg whose clients refuse redirects off the
// server's origin and report every error response in the server's words
// (see the package doc). Every client strata builds is built from a
// Secure config.
func Secure(cfg *rest.Config) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &guard{next: rt} })
	return c
}

// guard is the round tripper of [Secure]. client-go puts it under its
// authentication wrappers, so it sees each request as it leaves, the
// credentials on it, and a redirect as a new request whose Response is
// the redirect's (net/http sets it).
type guard struct{ next http.RoundTripper }

// RedirectError is a redirect strata refused to follow.
type RedirectError struct{ From, To string }

func (e *RedirectError) Error() string {
	return fmt.Sprintf("the API server redirected to %s: strata follows no redirect from %s to another scheme, host or port, as that would send the credentials there", e.To, e.From)
}

func (g *guard) RoundTrip(req *http.Request) (*http.Response, error) {
	if prev := req.Response; prev != nil && prev.Request != nil {
		if from := prev.Request.URL; origin(from) != origin(req.URL) {
			return nil, &RedirectError{From: origin(from), To: origin(req.URL)}
		}
	}
	resp, err := g.next.RoundTrip(req)
	if err != nil || resp.StatusCode < 400 {
		return resp, err
	}
	return statusBody(resp), nil
}

// origin is a URL's scheme, host and port, the port made explicit.
func origin(u *url.URL) string {
	scheme, host := strings.ToLower(u.Scheme), strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	port := u.Port()
	if port == "" {
		port = defaultPort(scheme)
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return scheme + "://" + host + ":" + port
}

func defaultPort(scheme string) string {
	if scheme == "http" {
		return "80"
	}
	return "443"
}

// maxErrorBody is how much of an error response is read to find what the
// server said.
const maxErrorBody = 64 << 10

// statusBody returns resp with a body that client-go decodes into an error
// that says what the server said: a Kubernetes Status as it is, anything
// else (a proxy's page, JSON of its own, nothing) as a Status whose message
// is the start of the body's text, or the HTTP status when it has none.
func statusBody(resp *http.Response) *http.Response {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	_ = resp.Body.Close()
	var probe struct{ Kind, Message string }
	if json.Unmarshal(body, &probe) == nil && probe.Kind == "Status" {
		resp.Body = io.NopCloser(bytes.NewReader(body))
		return resp
	}
	msg := fmt.Sprintf("the server answered %s", resp.Status)
	if text := bodyText(body); text != "" {
		msg += ": " + text
	} else {
		msg += " with an empty body"
	}
	status, _ := json.Marshal(map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure",
		"message": msg, "reason": reasonOf(resp.StatusCode), "code": resp.StatusCode})
	resp.Body = io.NopCloser(bytes.NewReader(status))
	resp.ContentLength = int64(len(status))
	resp.Header = resp.Header.Clone()
	resp.Header.Set("Content-Type", "application/json")
	resp.Header.Del("Content-Encoding")
	return resp
}

// bodyText is the start of an error body as one printable line: a JSON
// object's message or error field when it has one, else the text with
// markup and control characters dropped.
func bodyText(body []byte) string {
	var obj map[string]any
	if json.Unmarshal(body, &obj) == nil {
		for _, k := range []string{"message", "error", "msg"} {
			if s, ok := obj[k].(string); ok && s != "" {
				return oneLine(s)
			}
		}
	}
	return oneLine(stripTags(string(body)))
}

func stripTags(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>' && in:
			in = false
			b.WriteByte(' ')
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// oneLine folds s into one line of printable text of at most 300 runes.
func oneLine(s string) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }), " ")
	if r := []rune(s); len(r) > 300 {
		s = string(r[:300]) + "..."
	}
	return s
}

// reasonOf is the Kubernetes Status reason of an HTTP status code, so that
// client-go's checks (IsForbidden, IsNotFound...) hold for a rewritten body.
func reasonOf(code int) string {
	switch code {
	case http.StatusUnauthorized:
		return "Unauthorized"
	case http.StatusForbidden:
		return "Forbidden"
	case http.StatusNotFound:
		return "NotFound"
	case http.StatusConflict:
		return "Conflict"
	case http.StatusGone:
		return "Gone"
	case http.StatusTooManyRequests:
		return "TooManyRequests"
	case http.StatusGatewayTimeout:
		return "Timeout"
	case http.StatusServiceUnavailable:
		return "ServiceUnavailable"
	case http.StatusBadRequest:
		return "BadRequest"
	}
	return "InternalError"
}
