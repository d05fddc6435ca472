package kube

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

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
	return statusBody(resp, req.Method), nil
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
