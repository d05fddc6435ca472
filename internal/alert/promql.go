package alert

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

// ParseQuery checks query as Prometheus would before running it, with
// Prometheus's own parser: an error for PromQL that does not parse
// ("1:5: parse error: unclosed left parenthesis") and for a query whose
// result is no instant vector or scalar (a range vector, a string), which
// an alerting rule's expr cannot be either.
func ParseQuery(query string) error {
	expr, err := parser.ParseExpr(query)
	if err != nil {
		var pe parser.ParseErrors
		if errors.As(err, &pe) && len(pe) > 0 {
			return &pe[0]
		}
		return err
	}
	switch t := expr.Type(); t {
	case parser.ValueTypeVector, parser.ValueTypeScalar:
		return nil
	default:
		return fmt.Errorf("the query returns a %s, not an instant vector (as an alerting rule's expr)", t)
	}
}

// alertSeries are the series Prometheus makes of its own alerting rules:
// they exist only while an alert is pending or firing, so that none of
// them is what a query over them expects when nothing is wrong.
var alertSeries = []string{"ALERTS", "ALERTS_FOR_STATE"}

// selectors are the series selectors of query whose having no series at
// all means the query cannot say anything: each vector selector's metric
// name (its whole selector when it has none), except the selectors under
// absent() and absent_over_time(), where no series is the point, and
// Prometheus's own ALERTS series.
func selectors(query string) ([]string, error) {
	expr, err := parser.ParseExpr(query)
	if err != nil {
		return nil, err
	}
	var out []string
	parser.Inspect(expr, func(node parser.Node, path []parser.Node) error {
		vs, ok := node.(*parser.VectorSelector)
		if !ok {
			return nil
		}
		for _, p := range path {
			if c, ok := p.(*parser.Call); ok && (c.Func.Name == "absent" || c.Func.Name == "absent_over_time") {
				return nil
			}
		}
		name := vs.Name
		if name == "" {
			for _, m := range vs.LabelMatchers {
				if m.Name == labels.MetricName && m.Type == labels.MatchEqual {
					name = m.Value
				}
			}
		}
		sel := (&parser.VectorSelector{LabelMatchers: vs.LabelMatchers}).String()
		if name != "" {
			if slices.Contains(alertSeries, name) {
				return nil
			}
			sel = fmt.Sprintf("{__name__=%q}", name)
		}
		if !slices.Contains(out, sel) {
			out = append(out, sel)
		}
		return nil
	})
	return out, nil
}

// SeriesLookback is how far back a query that returned nothing looks for
// the series it selects: a metric scraped within it exists.
const SeriesLookback = time.Hour

// noSeries returns an *Error when a selector of query has no series in
// Prometheus within SeriesLookback: the query returned nothing because
// it reads nothing (a misspelt metric, a target no longer scraped), not
// because nothing is wrong.
func noSeries(ctx context.Context, api promv1.API, server, query string, now time.Time) error {
	sels, err := selectors(query)
	if err != nil {
		return &Error{Server: server, Message: err.Error()}
	}
	var missing []string
	for _, sel := range sels {
		found, _, err := api.Series(ctx, []string{sel}, now.Add(-SeriesLookback), now, promv1.WithLimit(1))
		if err != nil {
			return &Error{Server: server, Message: fmt.Sprintf("looking for the series of %s: %v", sel, err)}
		}
		if len(found) == 0 {
			missing = append(missing, sel)
		}
	}
	if len(missing) > 0 {
		return &Error{Server: server, Message: fmt.Sprintf(
			"the query %q matches no series: Prometheus has none of %s in the last %s (a misspelt metric, a target no longer scraped?); "+
				"an answer that reads nothing is not \"nothing wrong\"", query, strings.Join(missing, ", "), SeriesLookback)}
	}
	return nil
}
