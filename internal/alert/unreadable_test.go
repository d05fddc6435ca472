package alert_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/strata-fleet/strata/internal/alert"
)

// Answers that say nothing are errors, never "no alert" or "no sample":
// a condition read from them cannot be taken for clear.
func TestUnreadableAnswers(t *testing.T) {
	big := `[` + strings.Repeat(`{"labels":{"alertname":"A"},"status":{"state":"active"}},`, 2000) + `{}]`
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    string
	}{
		{"Alertmanager answers 500", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, `"internal error"`)
		}, ": 500 Internal Server Error: internal error"},
		{"Alertmanager answers null", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "null\n") },
			`: the answer is "null", not a list of alerts`},
		{"Alertmanager answers nothing", func(w http.ResponseWriter, _ *http.Request) {},
			`: the answer is not a list of alerts`},
		{"an answer larger than the cap, its length announced", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Length", fmt.Sprint(len(big)))
			io.WriteString(w, big)
		}, "the answer is larger than 4096 bytes"},
		{"an answer larger than the cap, streamed", func(w http.ResponseWriter, _ *http.Request) {
			w.(http.Flusher).Flush() // chunked: no length told
			io.WriteString(w, big)
		}, "the answer is larger than 4096 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			got, err := alert.Client{MaxAnswer: 4096}.Firing(context.Background(), srv.URL, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, %v; want an error with %q", got, err, tt.want)
			}
		})
	}
}

// An answer of exactly the cap is read whole.
func TestAnswerAtTheCap(t *testing.T) {
	body := `[{"labels":{"alertname":"A"},"status":{"state":"active"}}]`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.(http.Flusher).Flush()
		io.WriteString(w, body)
	}))
	defer srv.Close()
	got, err := alert.Client{MaxAnswer: int64(len(body))}.Firing(context.Background(), srv.URL, nil)
	if err != nil || len(got) != 1 {
		t.Errorf("got %v, %v; want alert A", got, err)
	}
}

func TestUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there now
	if got, err := (alert.Client{}).Firing(context.Background(), url, nil); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("Alertmanager: %v, %v; want the connection refused", got, err)
	}
	if got, err := (alert.Client{}).Query(context.Background(), url, "up == 0"); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("Prometheus: %v, %v; want the connection refused", got, err)
	}
}

// promServer answers /api/v1/query with query and /api/v1/series with
// series (names of the metrics that have series), and records the
// selectors it was asked for.
func promServer(t *testing.T, query string, series []string, asked *[]string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			t.Error(err)
		}
		switch r.URL.Path {
		case "/api/v1/query":
			io.WriteString(w, query)
		case "/api/v1/series":
			m := r.Form["match[]"]
			*asked = append(*asked, m...)
			var found []string
			for _, name := range series {
				if len(m) == 1 && m[0] == fmt.Sprintf("{__name__=%q}", name) {
					found = append(found, fmt.Sprintf(`{"__name__":%q}`, name))
				}
			}
			fmt.Fprintf(w, `{"status":"success","data":[%s]}`, strings.Join(found, ","))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A query that returns nothing passes only where the series it selects
// exist: over a metric Prometheus has no series of, it read nothing.
func TestQueryNoSeries(t *testing.T) {
	const empty = `{"status":"success","data":{"resultType":"vector","result":[]}}`
	tests := []struct {
		name, query string
		series      []string
		wantAsked   []string
		want        string // "" passes
	}{
		{"the metric exists: nothing wrong", `sum(rate(http_requests_total{code=~"5.."}[5m])) > 1`, []string{"http_requests_total"},
			[]string{`{__name__="http_requests_total"}`}, ""},
		{"a misspelt metric", `sum(rate(http_request_total{code=~"5.."}[5m])) > 1`, []string{"http_requests_total"},
			[]string{`{__name__="http_request_total"}`}, `matches no series: Prometheus has none of {__name__="http_request_total"}`},
		{"each metric of the query", `errors_total / requests_total > 0.01`, []string{"requests_total"},
			[]string{`{__name__="errors_total"}`, `{__name__="requests_total"}`}, `none of {__name__="errors_total"} in`},
		{"ALERTS exist only while an alert fires", `ALERTS{alertstate="firing", severity="critical"}`, nil, nil, ""},
		{"absent() is meant for no series", `absent(up{job="argocd"})`, nil, nil, ""},
		{"a selector without a name is looked for whole", `{job="argocd"} == 0`, nil,
			[]string{`{job="argocd"}`}, `none of {job="argocd"}`},
		{"no selector at all", `vector(1) > 2`, nil, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked []string
			srv := promServer(t, empty, tt.series, &asked)
			got, err := alert.Client{}.Query(context.Background(), srv.URL, tt.query)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("got %v; want no sample and no error", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("got %v, %v; want an error with %q", got, err, tt.want)
			}
			if strings.Join(asked, " ") != strings.Join(tt.wantAsked, " ") {
				t.Errorf("asked for the series of %q, want %q", asked, tt.wantAsked)
			}
		})
	}
}

func TestQueryNull(t *testing.T) {
	for _, body := range []string{
		`{"status":"success","data":{"resultType":"vector","result":null}}`,
		`{"status":"success","data":null}`,
		`null`,
	} {
		var asked []string
		srv := promServer(t, body, []string{"up"}, &asked)
		got, err := alert.Client{}.Query(context.Background(), srv.URL, "up == 0")
		if err == nil {
			t.Errorf("%s: got %v and no error; want the answer unreadable", body, got)
		}
	}
}

func TestQueryTooLarge(t *testing.T) {
	var result []string
	for i := range 200 {
		result = append(result, fmt.Sprintf(`{"metric":{"__name__":"up","instance":"i%d"},"value":[1764164400.781,"0"]}`, i))
	}
	var asked []string
	srv := promServer(t, `{"status":"success","data":{"resultType":"vector","result":[`+strings.Join(result, ",")+`]}}`, nil, &asked)
	got, err := alert.Client{MaxAnswer: 4096}.Query(context.Background(), srv.URL, "up == 0")
	if err == nil || !strings.Contains(err.Error(), "larger than 4096 bytes") {
		t.Errorf("got %d samples, %v; want the answer refused as too large", len(got), err)
	}
}

func TestParseQuery(t *testing.T) {
	tests := []struct{ query, want string }{
		{`sum(rate(http_requests_total{code=~"5.."}[5m])) > 1`, ""},
		{`ALERTS{alertstate="firing"}`, ""},
		{`scalar(up)`, ""},
		{`sum((`, "1:6: parse error: unclosed left parenthesis"},
		{`up{job="a"`, "parse error"},
		{`up[5m]`, "returns a matrix, not an instant vector"},
		{`"text"`, "returns a string, not an instant vector"},
	}
	for _, tt := range tests {
		err := alert.ParseQuery(tt.query)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v, want none", tt.query, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: %v, want an error with %q", tt.query, err, tt.want)
		}
	}
}
