package live

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/strata-fleet/strata/internal/fleet"
)

// TestCallTimeoutBoundsEachPage: with Options.CallTimeout, each page of a
// list has its own deadline, and the caller's context alone bounds the
// whole read. A server that answers every page slowly, each well within
// the limit but all of them together past it, is read to its end; one
// that stops answering at a later page fails within the limit with the
// reason a deadline gives, whatever the caller's context.
func TestCallTimeoutBoundsEachPage(t *testing.T) {
	const (
		limit = 2 * time.Second
		pages = 8
	)
	// pager serves pages of one Application each; page hang (if any)
	// never answers, the others after wait.
	pager := func(wait time.Duration, hang int, served *atomic.Int32) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			var n int
			fmt.Sscan(r.URL.Query().Get("continue"), &n)
			served.Add(1)
			select {
			case <-r.Context().Done():
				return
			case <-time.After(wait):
			}
			if n == hang {
				<-r.Context().Done()
				return
			}
			cont := ""
			if n+1 < pages {
				cont = fmt.Sprint(n + 1)
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"kind":"ApplicationList","metadata":{"resourceVersion":"9","continue":%q},"items":[{"metadata":{"name":"app-%d"}}]}`, cont, n)
		}
	}
	read := func(t *testing.T, host, via string) *Instance {
		cfg := &rest.Config{Host: host}
		connect := func(*fleet.Cluster) (dynamic.Interface, error) {
			c, err := ClientFor(cfg)
			if err != nil || via == "list" {
				return c, err
			}
			return c.Interface, nil
		}
		done := make(chan *Instance, 1)
		go func() {
			done <- ReadOne(context.Background(), &fleet.Cluster{Name: "mc-1"}, connect, Options{PageSize: 1, CallTimeout: limit})
		}()
		select {
		case in := <-done:
			return in
		case <-time.After(pages*limit + faultMargin):
			t.Fatalf("%s: the read did not end", via)
			return nil
		}
	}
	for _, via := range []string{"list", "dynamic"} {
		t.Run("slow pages/"+via, func(t *testing.T) {
			t.Parallel()
			var served atomic.Int32
			// Each page a third of the limit: the 8 pages take 2.7 limits.
			host := faultServer(t, pager(limit/3, -1, &served), nil)
			in := read(t, host, via)
			if in.Error != "" {
				t.Fatalf("read failed: %s", in.Error)
			}
			if len(in.Applications) != pages || in.Applications[pages-1].Name != fmt.Sprintf("app-%d", pages-1) {
				t.Errorf("read %d Applications, want %d", len(in.Applications), pages)
			}
		})
		t.Run("a later page hangs/"+via, func(t *testing.T) {
			t.Parallel()
			var served atomic.Int32
			host := faultServer(t, pager(0, 3, &served), nil)
			in := read(t, host, via)
			want := "listing Applications in argocd: no answer from the API server before the deadline: "
			if !strings.Contains(in.Error, want) || in.Reason != "no answer from the API server before the deadline" {
				t.Errorf("error %q, reason %q; want the error to say %q", in.Error, in.Reason, want)
			}
			if n := served.Load(); n != 4 {
				t.Errorf("the server was asked %d pages, want 4 (the read stops at the page that hangs)", n)
			}
		})
	}
}
