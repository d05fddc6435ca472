package kube

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"path"
	"strings"
	"time"
)

// NormalURL is an API server URL as a server: the scheme and host in
// lower case, the host without a trailing dot, the port explicit, the path
// cleaned and without a trailing slash; no query, fragment or user. A URL
// without scheme is https, as client-go takes it.
func NormalURL(s string) (string, error) {
	raw := strings.TrimSpace(s)
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("server %q: %w", s, err)
	}
	if u.Hostname() == "" {
		return "", fmt.Errorf("server %q names no host", s)
	}
	p := path.Clean("/" + u.Path)
	if p == "/" {
		p = ""
	}
	return origin(u) + p, nil
}

// SameServer reports whether the API server URLs a and b name one server
// (see [Servers.Same]).
func SameServer(ctx context.Context, a, b string) (same bool, why string) {
	return new(Servers).Same(ctx, a, b)
}

// Servers compares API server URLs, remembering the addresses of the hosts
// it resolved: one Servers for the comparisons of one check. The zero
// value is ready to use.
type Servers struct {
	ips map[string][]net.IP
}

// Same reports whether the API server URLs a and b name one server: their
// normal URLs are equal ([NormalURL]), or they differ only in the host and
// the two hosts resolve to a common address (bounded by ctx's deadline,
// else resolveTimeout per look-up). why says which, for an error. URLs
// that cannot be parsed are compared as text.
func (s *Servers) Same(ctx context.Context, a, b string) (same bool, why string) {
	na, errA := NormalURL(a)
	nb, errB := NormalURL(b)
	if errA != nil || errB != nil {
		return strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/"), "the same URL"
	}
	if na == nb {
		if a == b {
			return true, "the same URL"
		}
		return true, "one server once normalised"
	}
	ua, _ := url.Parse(na)
	ub, _ := url.Parse(nb)
	if ua.Scheme != ub.Scheme || ua.Port() != ub.Port() || ua.Path != ub.Path {
		return false, ""
	}
	if addr, ok := s.commonAddress(ctx, ua.Hostname(), ub.Hostname()); ok {
		return true, fmt.Sprintf("both hosts resolve to %s", addr)
	}
	return false, ""
}

// resolveTimeout bounds a name look-up.
const resolveTimeout = 5 * time.Second

// commonAddress returns an address that hosts a and b both resolve to.
// A host that does not resolve shares none.
func (s *Servers) commonAddress(ctx context.Context, a, b string) (string, bool) {
	addrsA, errA := s.resolve(ctx, a)
	addrsB, errB := s.resolve(ctx, b)
	if errA != nil || errB != nil {
		return "", false
	}
	for _, x := range addrsA {
		for _, y := range addrsB {
			if x.Equal(y) {
				return x.String(), true
			}
		}
	}
	return "", false
}

func (s *Servers) resolve(ctx context.Context, host string) ([]net.IP, error) {
	if ip := net.ParseIP(host); ip != nil {
		return []net.IP{ip}, nil
	}
	if ips, ok := s.ips[host]; ok {
		return ips, nil
	}
	ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	var out []net.IP
	for _, a := range addrs {
		out = append(out, a.IP)
	}
	if s.ips == nil {
		s.ips = map[string][]net.IP{}
	}
	s.ips[host] = out // a host that does not resolve is not looked up again
	return out, err
}
