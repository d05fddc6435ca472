package cli_test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdAlertServer starts, for the scenario's lifetime, a server that
// answers as an Alertmanager (GET /api/v2/alerts) and a Prometheus
// (/api/v1/query, /api/v1/series) do, or fail to, and sets VAR to its
// URL:
//
//	alertserver MODE VAR
//
// MODE is clear (no alert, no sample, every series there), firing (one
// alert, one sample), error500 (500 with a message), null (null for a
// body), noseries (no sample, and no series of any metric), refused
// (nothing listens at the URL) or recovering (error500 for the first
// request, then clear).
func cmdAlertServer(ts *testscript.TestScript, neg bool, args []string) {
	modes := map[string]bool{"clear": true, "firing": true, "error500": true, "null": true, "noseries": true, "refused": true, "recovering": true}
	if neg || len(args) != 2 || !modes[args[0]] {
		ts.Fatalf("usage: alertserver clear|firing|error500|null|noseries|refused|recovering VAR")
	}
	mode := args[0]
	if mode == "refused" {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		ts.Check(err)
		ts.Setenv(args[1], "http://"+ln.Addr().String())
		ts.Check(ln.Close())
		return
	}
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if mode == "recovering" && served.Add(1) == 1 {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, `"internal error"`)
			return
		}
		switch mode {
		case "error500":
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, `"internal error"`)
			return
		case "null":
			fmt.Fprint(w, "null")
			return
		}
		switch r.URL.Path {
		case "/api/v2/alerts":
			if mode == "firing" {
				fmt.Fprint(w, `[{"labels":{"alertname":"HighErrorRate","severity":"critical"},"annotations":{"summary":"5xx above 1%"},"startsAt":"2026-11-26T13:40:00Z","status":{"state":"active"}}]`)
				return
			}
			fmt.Fprint(w, "[]")
		case "/api/v1/query":
			result := "[]"
			if mode == "firing" {
				result = `[{"metric":{"cluster":"w1"},"value":[1764164400.781,"2.5"]}]`
			}
			fmt.Fprintf(w, `{"status":"success","data":{"resultType":"vector","result":%s}}`, result)
		case "/api/v1/series":
			data := `[{"__name__":"errors_total"}]`
			if mode == "noseries" {
				data = "[]"
			}
			fmt.Fprintf(w, `{"status":"success","data":%s}`, data)
		default:
			http.NotFound(w, r)
		}
	}))
	ts.Defer(srv.Close)
	ts.Setenv(args[1], srv.URL)
}
