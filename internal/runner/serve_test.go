package runner

import (
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Two runners of one host name and PID (containers on the host network)
// get two identities: they elected each other's lease as their own.
func TestIdentityUnique(t *testing.T) {
	a, b := Identity("node-1", 1), Identity("node-1", 1)
	if a == b {
		t.Errorf("two runners of one host and PID share the identity %s", a)
	}
	if !strings.HasPrefix(a, "node-1_1_") {
		t.Errorf("identity %s does not start with the host and PID", a)
	}
}

// The metrics server closes idle connections and accepts no more than its
// connection cap at once: 1,500 idle connections were all held.
func TestServeBounded(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cl := &counting{Listener: ln}
	srv := Serve(cl, NewMetrics().Handler(), ServerLimits{Read: 200 * time.Millisecond, Idle: 200 * time.Millisecond, Connections: 2})
	defer srv.Close()
	addr := ln.Addr().String()

	// A client that connects and says nothing is cut off after the read
	// timeout.
	idle, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	idle.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadAll(idle); err != nil {
		t.Errorf("an idle connection was not closed by the server: %v", err)
	}

	// Ten clients that begin a request and never finish it: the server
	// holds no more than its cap of them at once (the others wait to be
	// accepted), and cuts each off at its read timeout.
	var conns []net.Conn
	for range 10 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n"); err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	for _, c := range conns {
		c.SetReadDeadline(time.Now().Add(30 * time.Second))
		if _, err := io.ReadAll(c); err != nil {
			t.Errorf("a connection was not closed by the server: %v", err)
		}
	}
	if n := cl.most.Load(); n > 2 {
		t.Errorf("the server held %d connections at once, want at most 2", n)
	}
}

// counting is a listener that counts the connections it accepted and
// that are not closed yet, and the most at once.
type counting struct {
	net.Listener
	open, most atomic.Int64
}

func (l *counting) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	n := l.open.Add(1)
	for m := l.most.Load(); n > m && !l.most.CompareAndSwap(m, n); m = l.most.Load() {
	}
	return &countedConn{Conn: c, l: l}, nil
}

type countedConn struct {
	net.Conn
	l    *counting
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() { c.l.open.Add(-1) })
	return c.Conn.Close()
}
