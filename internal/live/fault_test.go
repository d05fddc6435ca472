package live

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/strata-fleet/strata/internal/fleet"
)

// faultBudget is the deadline of the reads under test, and faultMargin how
// much later than it a read must have ended for the test to fail: the
// reads end at the deadline, the margin is for a busy machine.
const (
	faultBudget = 2 * time.Second
	faultMargin = 30 * time.Second
)

// forbidden is a real kube-apiserver's answer to a list it does not allow.
const forbidden = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"applications.argoproj.io is forbidden: User \"system:serviceaccount:argocd:reader\" cannot list resource \"applications\" in API group \"argoproj.io\" in the namespace \"argocd\"","reason":"Forbidden","details":{"group":"argoproj.io","kind":"applications"},"code":403}`

// TestReadEndsWhateverTheServerDoes reads one Argo CD through an API
// server that misbehaves in each way a bad day has: Read ends by its
// deadline (never waiting past it, waited for here with a margin, not
// timed), and the instance's error says what the server did, in its own
// words where it said any.
func TestReadEndsWhateverTheServerDoes(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		fmt.Fprint(w, `{"kind":"ApplicationList","metadata":{},"items":[]}`)
	}))
	t.Cleanup(other.Close)
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		// raw, when set, serves the connections instead of HTTP.
		raw    func(net.Conn)
		want   string
		reason string
	}{
		{name: "hang after the request", handler: func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() },
			want: "listing Applications in argocd: no answer from the API server before the deadline: ", reason: "no answer from the API server before the deadline"},
		{name: "hang after accept", raw: func(c net.Conn) { _, _ = io.Copy(io.Discard, c) }, // reads, never answers
			want: "listing Applications in argocd: no answer from the API server before the deadline: ", reason: "no answer from the API server before the deadline"},
		{name: "trickle", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"kind":"ApplicationList","items":[`)
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			for {
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-tick.C:
					fmt.Fprint(w, " ")
				}
			}
		}, want: "listing Applications in argocd: no answer from the API server before the deadline: ", reason: "no answer from the API server before the deadline"},
		{name: "reset", raw: func(c net.Conn) {
			_, _ = c.Read(make([]byte, 4096))
			_ = c.(*net.TCPConn).SetLinger(0)
			_ = c.Close()
		}, want: "connection reset"},
		{name: "500 with an empty body", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(500)
		}, want: "the server answered 500 Internal Server Error with an empty body",
			reason: "the server answered 500 Internal Server Error with an empty body"},
		{name: "403 with its Status", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(403)
			fmt.Fprint(w, forbidden)
		}, want: `listing Applications in argocd: applications.argoproj.io is forbidden: User "system:serviceaccount:argocd:reader" cannot list resource "applications"`,
			reason: `applications.argoproj.io is forbidden: User "system:serviceaccount:argocd:reader" cannot list resource "applications" in API group "argoproj.io" in the namespace "argocd"`},
		{name: "pages without end", handler: func(w http.ResponseWriter, r *http.Request) {
			var n int
			fmt.Sscan(r.URL.Query().Get("continue"), &n)
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"kind":"ApplicationList","metadata":{"continue":"%d"},"items":[]}`, n+1)
		}, want: "listing Applications in argocd: no answer from the API server before the deadline: ", reason: "no answer from the API server before the deadline"},
		{name: "a continue token answered with itself", handler: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"kind":"ApplicationList","metadata":{"continue":"again"},"items":[]}`)
		}, want: `continue token "again" with itself`},
		{name: "redirect to another server", handler: func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+r.URL.RequestURI(), http.StatusTemporaryRedirect)
		}, want: "strata follows no redirect from", reason: "the API server redirected to another scheme, host or port: refused, as it would send the credentials there"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			host := faultServer(t, tc.handler, tc.raw)
			for _, via := range []string{"list", "dynamic"} {
				in := readWithin(t, host, via)
				if !strings.Contains(in.Error, tc.want) {
					t.Errorf("%s: error %q, want it to say %q", via, in.Error, tc.want)
				}
				if tc.reason != "" && in.Reason != tc.reason {
					t.Errorf("%s: reason %q, want %q", via, in.Reason, tc.reason)
				}
			}
		})
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the server redirected to got %d requests", n)
	}
}

// faultServer serves handler (or raw connections) on 127.0.0.1 and
// returns its URL.
func faultServer(t *testing.T, handler http.HandlerFunc, raw func(net.Conn)) string {
	if raw == nil {
		srv := httptest.NewServer(handler)
		t.Cleanup(srv.Close)
		return srv.URL
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// The connections stay referenced until the test ends: a connection
	// the garbage collector finds unreachable is closed by its finalizer,
	// which a client reads as the server's EOF, not a hang.
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		_ = l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go raw(c)
		}
	}()
	return "http://" + l.Addr().String()
}

// readWithin reads the Argo CD of host with faultBudget as its deadline,
// through live's own client (via "list") or a plain dynamic client, and
// fails the test unless the read ended within faultBudget+faultMargin.
func readWithin(t *testing.T, host, via string) *Instance {
	t.Helper()
	cfg := &rest.Config{Host: host, BearerToken: "the-token"}
	connect := func(*fleet.Cluster) (dynamic.Interface, error) {
		c, err := ClientFor(cfg)
		if err != nil || via == "list" {
			return c, err
		}
		return c.Interface, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), faultBudget)
	defer cancel()
	done := make(chan *Instance, 1)
	go func() { done <- ReadOne(ctx, &fleet.Cluster{Name: "mc-1"}, connect, Options{PageSize: 2}) }()
	select {
	case in := <-done:
		return in
	case <-time.After(faultBudget + faultMargin):
		t.Fatalf("%s: Read did not end %s after its deadline", via, faultMargin)
		return nil
	}
}

// TestWatchEndsByItsDeadline: a watch on an API server that accepts it
// and then sends nothing ends with its context's deadline.
func TestWatchEndsByItsDeadline(t *testing.T) {
	for name, handler := range map[string]http.HandlerFunc{
		"no answer": func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() },
		"no event": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		},
	} {
		t.Run(name, func(t *testing.T) {
			host := faultServer(t, handler, nil)
			c, err := ClientFor(&rest.Config{Host: host})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), faultBudget)
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := Watch(ctx, c, "argocd", "1", func(Event) bool { return true })
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil {
					t.Errorf("Watch ended with no error before the span it asked for")
				}
			case <-time.After(faultBudget + faultMargin):
				t.Fatalf("Watch did not end %s after its deadline", faultMargin)
			}
		})
	}
}
