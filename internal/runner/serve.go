package runner

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"time"

	"golang.org/x/net/netutil"
)

// Identity names a runner in its Lease: host_pid_random. The random part
// tells apart two runners whose host name and PID are the same
// (containers on the host network, each its own PID 1), which would
// otherwise both take the Lease for their own and both lead.
func Identity(host string, pid int) string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on the platforms Go supports
	}
	return fmt.Sprintf("%s_%d_%s", host, pid, hex.EncodeToString(b[:]))
}

// ServerLimits bound the server of a runner's metrics and health: how
// long a request may take to be read and answered, how long a connection
// may stay idle, and how many may be open at once (more wait to be
// accepted). A zero field takes its default.
type ServerLimits struct {
	Read, Write, Idle time.Duration
	Connections       int
}

// Defaults of ServerLimits: a scrape reads a few KB, and a handful of
// scrapers and probes share the server.
const (
	DefaultReadTimeout  = 10 * time.Second
	DefaultWriteTimeout = 30 * time.Second
	DefaultIdleTimeout  = time.Minute
	DefaultConnections  = 64
)

// Serve serves h on ln within limits until the returned server is closed:
// no client, however slow or idle, holds more than limits.Connections
// connections or any longer than its timeouts.
func Serve(ln net.Listener, h http.Handler, limits ServerLimits) *http.Server {
	or := func(d, def time.Duration) time.Duration {
		if d > 0 {
			return d
		}
		return def
	}
	conns := limits.Connections
	if conns <= 0 {
		conns = DefaultConnections
	}
	read := or(limits.Read, DefaultReadTimeout)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: read, ReadTimeout: read,
		WriteTimeout: or(limits.Write, DefaultWriteTimeout), IdleTimeout: or(limits.Idle, DefaultIdleTimeout)}
	go func() { _ = srv.Serve(netutil.LimitListener(ln, conns)) }()
	return srv
}
