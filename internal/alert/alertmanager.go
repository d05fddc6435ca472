package alert

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// gettableAlert is the part of Alertmanager's gettableAlert (API v2,
// api/v2/openapi.yaml) that strata reads.
type gettableAlert struct {
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	StartsAt    time.Time         `json:"startsAt"`
	Status      struct {
		State string `json:"state"`
	} `json:"status"`
}

// Firing returns the alerts that the Alertmanager at base has firing
// (active, neither silenced nor inhibited) and that match every matcher:
// GET /api/v2/alerts?active=true&silenced=false&inhibited=false&filter=...
func (c Client) Firing(ctx context.Context, base string, matchers []string) (_ []Alert, err error) {
	defer func() { err = hidden(err, base) }()
	server := "Alertmanager " + redacted(base)
	u, err := url.Parse(strings.TrimRight(base, "/") + "/api/v2/alerts")
	if err != nil {
		return nil, &Error{Server: server, Message: err.Error()}
	}
	q := url.Values{"active": {"true"}, "silenced": {"false"}, "inhibited": {"false"}}
	for _, m := range matchers {
		q.Add("filter", m)
	}
	u.RawQuery = q.Encode()
	body, err := c.get(ctx, server, u.String())
	if err != nil {
		return nil, err
	}
	var got []gettableAlert
	if err := json.Unmarshal(body, &got); err != nil {
		return nil, &Error{Server: server, Message: "the answer is not a list of alerts: " + err.Error()}
	}
	if got == nil {
		// null (or nothing): a server that says nothing has not said
		// that nothing fires.
		return nil, &Error{Server: server, Message: fmt.Sprintf("the answer is %q, not a list of alerts ([] when none fires)", strings.TrimSpace(string(body)))}
	}
	var out []Alert
	for _, a := range got {
		if a.Status.State == "suppressed" {
			continue // silenced or inhibited: an older server that ignored the parameters
		}
		summary := a.Annotations["summary"]
		if summary == "" {
			summary = a.Annotations["description"]
		}
		out = append(out, Alert{Name: a.Labels["alertname"], Labels: a.Labels, Summary: summary, Since: a.StartsAt})
	}
	sortAlerts(out)
	return out, nil
}

// get GETs u within the deadline and returns the body of a 2xx answer;
// any other answer is an *Error with the server's message (Alertmanager
// answers errors with a JSON string).
func (c Client) get(ctx context.Context, server, u string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, &Error{Server: server, Message: err.Error()}
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http().Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, &Error{Server: server, Message: fmt.Sprintf("no answer within %s", c.timeout())}
		}
		return nil, &Error{Server: server, Message: err.Error()}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, &Error{Server: server, Status: resp.StatusCode, Message: "reading the answer: " + err.Error()}
	}
	if resp.StatusCode/100 != 2 {
		return nil, &Error{Server: server, Status: resp.StatusCode, Message: serverMessage(body)}
	}
	return body, nil
}

// serverMessage is what an error body says: a JSON string (Alertmanager),
// an object's "error" (Prometheus), else the text itself, shortened.
func serverMessage(body []byte) string {
	var s string
	if json.Unmarshal(body, &s) == nil && s != "" {
		return s
	}
	var obj struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(body, &obj) == nil && obj.Error != "" {
		return obj.Error
	}
	text := strings.TrimSpace(string(body))
	if len(text) > 300 {
		text = text[:300] + "..."
	}
	if text == "" {
		return "no message"
	}
	return text
}
