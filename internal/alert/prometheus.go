package alert

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// Query runs an instant query on the Prometheus at base (POST
// /api/v1/query, GET where POST is not allowed) and returns its samples:
// none means nothing is wrong, when the series the query selects exist
// (an empty answer over a metric Prometheus has no series of is an
// error: the query read nothing, see noSeries). An answer that is null,
// or larger than the client's MaxAnswer, is an error too. A vector's samples are named by their
// labels; a scalar is one sample, as a Prometheus alerting rule takes it;
// a range vector or a string is an error, as it is for such a rule.
func (c Client) Query(ctx context.Context, base, query string) (_ []Alert, err error) {
	defer func() { err = hidden(err, base) }()
	server := "Prometheus " + redacted(base)
	pc, err := api.NewClient(api.Config{Address: base, Client: c.http()})
	if err != nil {
		return nil, &Error{Server: server, Message: err.Error()}
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout())
	defer cancel()
	papi := promv1.NewAPI(pc)
	v, _, err := papi.Query(ctx, query, time.Time{})
	if err != nil {
		return nil, promError(ctx, server, c.timeout(), err)
	}
	var out []Alert
	switch v := v.(type) {
	case model.Vector:
		if v == nil {
			return nil, &Error{Server: server, Message: "the answer's result is null, not a vector ([] when nothing matches)"}
		}
		for _, s := range v {
			out = append(out, sample(s.Metric, s.Value.String(), s.Histogram))
		}
		if len(v) == 0 {
			if err := noSeries(ctx, papi, server, query, time.Now()); err != nil {
				return nil, hideTimeout(ctx, err, server, c.timeout())
			}
		}
	case *model.Scalar:
		out = append(out, Alert{Name: "scalar", Value: v.Value.String()})
	case nil:
		return nil, &Error{Server: server, Message: "the answer has no result (null), not a vector"}
	default:
		return nil, &Error{Server: server, Message: fmt.Sprintf("the query %q returns a %s, not an instant vector (as an alerting rule's expr)", query, v.Type())}
	}
	sortAlerts(out)
	return out, nil
}

// hideTimeout is err, or the deadline's error when ctx's passed.
func hideTimeout(ctx context.Context, err error, server string, timeout time.Duration) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &Error{Server: server, Message: fmt.Sprintf("no answer within %s", timeout)}
	}
	return err
}

func sample(m model.Metric, value string, h *model.SampleHistogram) Alert {
	labels := map[string]string{}
	for k, v := range m {
		labels[string(k)] = string(v)
	}
	name := labels["alertname"]
	if name == "" {
		name = labels["__name__"]
	}
	delete(labels, "__name__")
	if h != nil {
		value = h.String()
	}
	return Alert{Name: name, Labels: labels, Value: value}
}

// promError turns the client's error into an *Error with Prometheus's
// errorType and message (or, for an answer that is no API answer, the
// HTTP status and the start of its body).
func promError(ctx context.Context, server string, timeout time.Duration, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &Error{Server: server, Message: fmt.Sprintf("no answer within %s", timeout)}
	}
	var pe *promv1.Error
	if !errors.As(err, &pe) {
		return &Error{Server: server, Message: err.Error()}
	}
	var env struct {
		ErrorType string `json:"errorType"`
		Error     string `json:"error"`
	}
	switch d := strings.TrimSpace(pe.Detail); {
	case json.Unmarshal([]byte(d), &env) == nil && env.Error != "":
		// An API error with a status the client does not expect one with
		// (a 503 for a query that timed out, a 500).
		return &Error{Server: server, Message: fmt.Sprintf("%s: %s", env.ErrorType, env.Error)}
	case d != "":
		return &Error{Server: server, Message: fmt.Sprintf("%s: %s", pe.Msg, serverMessage([]byte(d)))}
	}
	return &Error{Server: server, Message: fmt.Sprintf("%s: %s", pe.Type, pe.Msg)}
}
