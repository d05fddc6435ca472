package alert_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-fleet/strata/internal/alert"
)

// The answers below are those of Alertmanager's API v2 (api/v2/openapi.yaml:
// gettableAlerts; errors a JSON string) and Prometheus's API v1
// (docs/querying/api.md: the envelope with status, data.resultType and
// data.result; errors with errorType and error).

const amAlerts = `[
  {"annotations": {"summary": "5xx above 1% for 5m"}, "endsAt": "2026-11-26T14:05:00.000Z", "fingerprint": "a1b2c3d4e5f60718",
   "receivers": [{"name": "pager"}], "startsAt": "2026-11-26T13:40:00.000Z", "updatedAt": "2026-11-26T13:41:00.000Z",
   "status": {"inhibitedBy": [], "silencedBy": [], "state": "active"},
   "labels": {"alertname": "HighErrorRate", "cluster": "w1", "severity": "critical"},
   "generatorURL": "http://prometheus:9090/graph?g0.expr=..."},
  {"annotations": {"description": "etcd has no leader"}, "endsAt": "2026-11-26T14:05:00.000Z", "fingerprint": "0f1e2d3c4b5a6978",
   "receivers": [{"name": "pager"}], "startsAt": "2026-11-26T13:30:00.000Z", "updatedAt": "2026-11-26T13:41:00.000Z",
   "status": {"inhibitedBy": [], "silencedBy": ["5f3a"], "state": "suppressed"},
   "labels": {"alertname": "EtcdNoLeader", "severity": "critical"}}
]`

func TestFiring(t *testing.T) {
	var asked url.Values
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/api/v2/alerts" {
			http.NotFound(w, r)
			return
		}
		asked = r.URL.Query()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, amAlerts)
	}))
	defer srv.Close()
	got, err := alert.Client{}.Firing(context.Background(), srv.URL+"/", []string{`severity="critical"`, `team=~"platform|sre"`})
	if err != nil {
		t.Fatal(err)
	}
	want := []alert.Alert{{Name: "HighErrorRate", Labels: map[string]string{"alertname": "HighErrorRate", "cluster": "w1", "severity": "critical"},
		Summary: "5xx above 1% for 5m", Since: time.Date(2026, 11, 26, 13, 40, 0, 0, time.UTC)}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("alerts (-want +got):\n%s", d)
	}
	wantQuery := url.Values{"active": {"true"}, "silenced": {"false"}, "inhibited": {"false"}, "filter": {`severity="critical"`, `team=~"platform|sre"`}}
	if d := cmp.Diff(wantQuery, asked); d != "" {
		t.Errorf("query (-want +got):\n%s", d)
	}
	if s := got[0].String(); s != `HighErrorRate{cluster="w1", severity="critical"}: 5xx above 1% for 5m` {
		t.Errorf("String() = %s", s)
	}
}

func TestFiringErrors(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    string
	}{
		{"a bad matcher: Alertmanager's message", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `"bad matcher format: severity"`+"\n")
		}, ": 400 Bad Request: bad matcher format: severity"},
		{"a proxy's error page", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprint(w, "upstream connect error or disconnect/reset before headers")
		}, ": 502 Bad Gateway: upstream connect error or disconnect/reset before headers"},
		{"no JSON", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "<html>login</html>") },
			": the answer is not a list of alerts: invalid character"},
		{"no answer within the deadline", func(_ http.ResponseWriter, r *http.Request) {
			select {
			case <-block:
			case <-r.Context().Done():
			}
		}, ": no answer within 200ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			_, err := alert.Client{Timeout: 200 * time.Millisecond}.Firing(context.Background(), srv.URL, nil)
			if err == nil || !strings.HasPrefix(err.Error(), "Alertmanager "+srv.URL) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want Alertmanager %s...%s", err, srv.URL, tt.want)
			}
		})
	}
}

// prometheus answers /api/v1/query with body (status code), and records
// the query it was asked.
func prometheus(t *testing.T, code int, body string, asked *string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/series" {
			// Every metric the queries name has a series.
			fmt.Fprint(w, `{"status":"success","data":[{"__name__":"up","job":"test"}]}`)
			return
		}
		if r.URL.Path != "/api/v1/query" {
			http.NotFound(w, r)
			return
		}
		if err := r.ParseForm(); err != nil {
			t.Error(err)
		}
		if asked != nil {
			*asked = r.Method + " " + r.Form.Get("query")
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestQuery(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []alert.Alert
	}{
		{"a vector's samples", `{"status":"success","data":{"resultType":"vector","result":[
			{"metric":{"__name__":"argocd_app_info","name":"demo","health_status":"Degraded"},"value":[1764164400.781,"1"]},
			{"metric":{"alertname":"HighErrorRate","alertstate":"firing","cluster":"w1"},"value":[1764164400.781,"0.25"]}]}}`,
			[]alert.Alert{
				{Name: "HighErrorRate", Labels: map[string]string{"alertname": "HighErrorRate", "alertstate": "firing", "cluster": "w1"}, Value: "0.25"},
				{Name: "argocd_app_info", Labels: map[string]string{"name": "demo", "health_status": "Degraded"}, Value: "1"},
			}},
		{"an empty vector: nothing wrong", `{"status":"success","data":{"resultType":"vector","result":[]}}`, nil},
		{"a scalar is one sample", `{"status":"success","data":{"resultType":"scalar","result":[1764164400.781,"3"]}}`,
			[]alert.Alert{{Name: "scalar", Value: "3"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked string
			srv := prometheus(t, http.StatusOK, tt.body, &asked)
			got, err := alert.Client{}.Query(context.Background(), srv.URL, `ALERTS{alertstate="firing"} or argocd_app_info{health_status="Degraded"}`)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("samples (-want +got):\n%s", d)
			}
			if want := `POST ALERTS{alertstate="firing"} or argocd_app_info{health_status="Degraded"}`; asked != want {
				t.Errorf("asked %q, want %q", asked, want)
			}
		})
	}
}

func TestQueryErrors(t *testing.T) {
	tests := []struct {
		name string
		code int
		body string
		want string
	}{
		{"a parse error: Prometheus's message", http.StatusBadRequest,
			`{"status":"error","errorType":"bad_data","error":"invalid parameter \"query\": 1:8: parse error: unexpected end of input"}`,
			`: bad_data: invalid parameter "query": 1:8: parse error: unexpected end of input`},
		{"a query timeout", http.StatusServiceUnavailable,
			`{"status":"error","errorType":"timeout","error":"query timed out in expression evaluation"}`,
			": timeout: query timed out in expression evaluation"},
		{"a range vector is no alerting rule's", http.StatusOK,
			`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"up"},"values":[[1764164400,"1"],[1764164460,"1"]]}]}}`,
			`: the query "up[5m]" returns a matrix, not an instant vector`},
		{"a proxy's error page", http.StatusBadGateway, "<html><body>502 Bad Gateway</body></html>",
			"502 Bad Gateway</body></html>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := prometheus(t, tt.code, tt.body, nil)
			_, err := alert.Client{}.Query(context.Background(), srv.URL, "up[5m]")
			if err == nil || !strings.HasPrefix(err.Error(), "Prometheus "+srv.URL) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want Prometheus %s...%s", err, srv.URL, tt.want)
			}
		})
	}
}

// A Prometheus behind a proxy that allows only GET: the query goes again
// as a GET.
func TestQueryGet(t *testing.T) {
	var methods []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/series" {
			fmt.Fprint(w, `{"status":"success","data":[{"__name__":"up"}]}`)
			return
		}
		methods = append(methods, r.Method)
		if r.Method != http.MethodGet {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		if q := r.URL.Query().Get("query"); q != "up == 0" {
			t.Errorf("query %q", q)
		}
		fmt.Fprint(w, `{"status":"success","data":{"resultType":"vector","result":[]}}`)
	}))
	defer srv.Close()
	got, err := alert.Client{}.Query(context.Background(), srv.URL, "up == 0")
	if err != nil || len(got) != 0 {
		t.Fatalf("got %v, %v", got, err)
	}
	if d := cmp.Diff([]string{"POST", "GET"}, methods); d != "" {
		t.Errorf("methods (-want +got):\n%s", d)
	}
}

// A server that redirects to another host or port is not followed (as
// kube.Secure has it for API servers), and a password in the server's URL
// is in no error.
func TestCredentialsStayPut(t *testing.T) {
	var asked atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		io.WriteString(w, `[]`)
	}))
	defer elsewhere.Close()
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+r.URL.Path, http.StatusFound)
	}))
	defer redirect.Close()
	withPassword := strings.Replace(redirect.URL, "http://", "http://strata:s3cr3t@", 1)

	for name, call := range map[string]func() error{
		"Alertmanager": func() error { _, err := alert.Client{}.Firing(context.Background(), withPassword, nil); return err },
		"Prometheus": func() error {
			_, err := alert.Client{}.Query(context.Background(), withPassword, "up == 0")
			return err
		},
	} {
		err := call()
		if err == nil || !strings.Contains(err.Error(), "strata follows no redirect to another scheme, host or port") {
			t.Errorf("%s: want the redirect refused, got %v", name, err)
		}
		if err != nil && strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("%s: the error shows the password: %v", name, err)
		}
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("the other server was asked %d times", n)
	}
	_, err := alert.Client{}.Firing(context.Background(), "http://strata:s3cr3t@bad host/", nil)
	if err == nil || strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("a URL that does not parse: want an error without the password, got %v", err)
	}
}
