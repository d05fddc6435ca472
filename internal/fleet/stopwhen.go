package fleet

import (
	"fmt"
	"net/url"
	"regexp"
	"time"

	"github.com/strata-fleet/strata/internal/alert"
	"github.com/strata-fleet/strata/internal/values"
)

// Defaults of the conditions of rollout.stopWhen and of Prometheus checks.
const (
	// DefaultStopEvery is how often a stopWhen condition is read again
	// while a step waits or soaks.
	DefaultStopEvery = 30 * time.Second
	// DefaultQueryTimeout bounds one call to Prometheus or Alertmanager.
	DefaultQueryTimeout = 10 * time.Second
	// DefaultStopGrace is how long a stopWhen condition may stay
	// unreadable, holding the rollout, before the rollout says it cannot
	// go on (rollout --once exits 5, rollout --watch's /healthz answers
	// 503).
	DefaultStopGrace = time.Minute
)

// StopCondition is one condition of rollout.stopWhen: while it holds no
// step starts, and a step whose wait or soak it interrupts fails. It is
// read from Alertmanager (alerts firing that match the matchers) or from
// Prometheus (a query that returns samples), as an alerting rule reads.
type StopCondition struct {
	// Name names it in events and errors (default: the query or the
	// matchers).
	Name         string
	Alertmanager *AlertmanagerQuery
	Prometheus   *PrometheusQuery
	// Every is how often it is read during a wait or a soak; Timeout
	// bounds each read. Grace is how long it may stay unreadable, holding
	// the rollout, before that is an error (0: at once).
	Every, Timeout, Grace time.Duration
	Pos                   values.Pos
}

// AlertmanagerQuery asks an Alertmanager (API v2) for the alerts that
// fire (active, neither silenced nor inhibited) and match every matcher
// (Alertmanager's filter syntax: name="value", name=~"regex", !=, !~).
type AlertmanagerQuery struct {
	URL      string
	Matchers []string
}

// PrometheusQuery is an instant query to a Prometheus (API v1): samples
// in its result mean trouble.
type PrometheusQuery struct {
	URL   string
	Query string
}

// parseStopWhen reads rollout.stopWhen: a condition or a list of them.
func parseStopWhen(v *values.Value, path []string) ([]StopCondition, error) {
	items := []*values.Value{v}
	switch v.Kind {
	case values.Null:
		return nil, nil
	case values.List:
		items = v.Items
	case values.Map:
	default:
		e := values.TypeError(v, path, values.List)
		e.Hint = `stopWhen: [{alertmanager: {url: http://alertmanager:9093, matchers: ['severity="critical"']}}, {prometheus: {url: http://prometheus:9090, query: ...}}]`
		return nil, e
	}
	var out []StopCondition
	for i, it := range items {
		ipath := path
		if v.Kind == values.List {
			ipath = append(path[:len(path):len(path)], fmt.Sprint(i))
		}
		c, err := parseStopCondition(it, ipath)
		if err != nil {
			return nil, err
		}
		for _, o := range out {
			if o.Name == c.Name {
				return nil, &values.Error{Pos: c.Pos, Path: ipath, Msg: fmt.Sprintf("a second stopWhen condition named %q (the first at line %d)", c.Name, o.Pos.Line),
					Hint: "events, errors and status name a condition by its name: give each its own (name: ...)"}
			}
		}
		out = append(out, c)
	}
	return out, nil
}

func parseStopCondition(v *values.Value, path []string) (StopCondition, error) {
	c := StopCondition{Every: DefaultStopEvery, Timeout: DefaultQueryTimeout, Grace: DefaultStopGrace, Pos: v.Pos}
	if v.Kind != values.Map {
		return c, values.TypeError(v, path, values.Map)
	}
	if err := knownKeys(v, path, "name", "alertmanager", "prometheus", "every", "timeout", "grace"); err != nil {
		return c, err
	}
	c.Name = stringAt(v, "name")
	at := func(key string) []string { return append(path[:len(path):len(path)], key) }
	var err error
	if av := v.Get("alertmanager"); av != nil {
		if c.Alertmanager, err = parseAlertmanager(av, at("alertmanager")); err != nil {
			return c, err
		}
	}
	if pv := v.Get("prometheus"); pv != nil {
		if c.Prometheus, err = parsePrometheus(pv, at("prometheus")); err != nil {
			return c, err
		}
	}
	if (c.Alertmanager == nil) == (c.Prometheus == nil) {
		return c, &values.Error{Pos: v.Pos, Path: path, Msg: "a stopWhen condition reads one of alertmanager or prometheus",
			Hint: `{alertmanager: {url: http://alertmanager:9093, matchers: ['severity="critical"']}} or {prometheus: {url: http://prometheus:9090, query: 'ALERTS{alertstate="firing"}'}}`}
	}
	for key, d := range map[string]*time.Duration{"every": &c.Every, "timeout": &c.Timeout, "grace": &c.Grace} {
		if dv := v.Get(key); dv != nil {
			got, err := parseDuration(dv, at(key))
			if err != nil {
				return c, err
			}
			if got <= 0 && key != "grace" {
				return c, &values.Error{Pos: dv.Pos, Path: at(key), Msg: key + " must be more than 0"}
			}
			*d = got
		}
	}
	if c.Name == "" {
		if c.Prometheus != nil {
			c.Name = c.Prometheus.Query
		} else {
			c.Name = fmt.Sprintf("alerts %v", c.Alertmanager.Matchers)
		}
	}
	return c, nil
}

// matcher is the shape of an Alertmanager matcher: a label name, an
// operator, a value (quoted or not). Alertmanager parses it again; this
// only catches what it would refuse at every call, at its line.
var matcher = regexp.MustCompile(`^\s*[^\s=!~"{},]+\s*(=~|!~|!=|=)\s*("(?:[^"\\]|\\.)*"|[^"{},]*)\s*$`)

func parseAlertmanager(v *values.Value, path []string) (*AlertmanagerQuery, error) {
	if v.Kind != values.Map {
		e := values.TypeError(v, path, values.Map)
		e.Hint = `alertmanager: {url: http://alertmanager:9093, matchers: ['severity="critical"']}`
		return nil, e
	}
	if err := knownKeys(v, path, "url", "matchers"); err != nil {
		return nil, err
	}
	u, err := parseURL(v, path)
	if err != nil {
		return nil, err
	}
	q := &AlertmanagerQuery{URL: u}
	mv := v.Get("matchers")
	if mv == nil {
		return q, nil // every alert that fires
	}
	mpath := append(path[:len(path):len(path)], "matchers")
	if mv.Kind != values.List {
		e := values.TypeError(mv, mpath, values.List)
		e.Hint = `matchers: ['severity="critical"', 'team=~"platform|sre"']`
		return nil, e
	}
	for i, it := range mv.Items {
		if it.Kind != values.String || !matcher.MatchString(it.Text) {
			return nil, &values.Error{Pos: it.Pos, Path: append(mpath, fmt.Sprint(i)), Msg: "expected a matcher, got " + describe(it),
				Hint: `an Alertmanager matcher: name="value", name!="value", name=~"regex" or name!~"regex"`}
		}
		q.Matchers = append(q.Matchers, it.Text)
	}
	return q, nil
}

func parsePrometheus(v *values.Value, path []string) (*PrometheusQuery, error) {
	if v.Kind != values.Map {
		e := values.TypeError(v, path, values.Map)
		e.Hint = `prometheus: {url: http://prometheus:9090, query: 'sum(rate(http_requests_total{code=~"5.."}[5m])) > 1'}`
		return nil, e
	}
	if err := knownKeys(v, path, "url", "query"); err != nil {
		return nil, err
	}
	u, err := parseURL(v, path)
	if err != nil {
		return nil, err
	}
	q := &PrometheusQuery{URL: u, Query: stringAt(v, "query")}
	if q.Query == "" {
		return nil, &values.Error{Pos: v.Pos, Path: path, Msg: "missing key query",
			Hint: "a PromQL query that returns samples when something is wrong, as an alerting rule's expr"}
	}
	if err := alert.ParseQuery(q.Query); err != nil {
		qv := v.Get("query")
		return nil, &values.Error{Pos: qv.Pos, Path: append(path[:len(path):len(path)], "query"), Msg: fmt.Sprintf("the PromQL %q: %v", q.Query, err),
			Hint: "a PromQL query that returns samples when something is wrong, as an alerting rule's expr: sum(rate(http_requests_total{code=~\"5..\"}[5m])) > 1"}
	}
	return q, nil
}

// parseURL reads the url: key of v, an http or https URL.
func parseURL(v *values.Value, path []string) (string, error) {
	uv := v.Get("url")
	if uv == nil {
		return "", &values.Error{Pos: v.Pos, Path: path, Msg: "missing key url"}
	}
	u, err := url.Parse(uv.Text)
	if uv.Kind != values.String || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", &values.Error{Pos: uv.Pos, Path: append(path[:len(path):len(path)], "url"), Msg: "expected an http or https URL, got " + describe(uv)}
	}
	return uv.Text, nil
}
