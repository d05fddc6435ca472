package alert

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"
)

// DefaultTimeout bounds a call when Client.Timeout is not set.
const DefaultTimeout = 10 * time.Second

// Alert is one alert that fires in Alertmanager, or one sample a
// Prometheus query returned.
type Alert struct {
	// Name is the alertname label (or, for a sample, its metric name).
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels,omitempty"`
	// Summary is the alert's summary (or description) annotation.
	Summary string `json:"summary,omitempty"`
	// Since is when it started firing (zero for a sample).
	Since time.Time `json:"since,omitzero"`
	// Value is a sample's value ("" for an Alertmanager alert).
	Value string `json:"value,omitempty"`
}

// String names the alert as Prometheus prints a series, with its value or
// its summary: `HighErrorRate{cluster="w1", severity="critical"}: 5xx above 1%`.
func (a Alert) String() string {
	s := a.Name
	keys := slices.Sorted(maps.Keys(a.Labels))
	var ls []string
	for _, k := range keys {
		if k != "alertname" && k != "__name__" {
			ls = append(ls, fmt.Sprintf("%s=%q", k, a.Labels[k]))
		}
	}
	if len(ls) > 0 {
		s += "{" + strings.Join(ls, ", ") + "}"
	}
	switch {
	case a.Value != "":
		s += " = " + a.Value
	case a.Summary != "":
		s += ": " + a.Summary
	}
	return s
}

// Describe lists alerts in one line: the first few, then how many more.
func Describe(alerts []Alert) string {
	const show = 3
	var parts []string
	for i, a := range alerts {
		if i == show {
			parts = append(parts, fmt.Sprintf("and %d more", len(alerts)-show))
			break
		}
		parts = append(parts, a.String())
	}
	return strings.Join(parts, "; ")
}

// Client is what a call goes through: an HTTP client (nil:
// http.DefaultClient) and the deadline of each call.
type Client struct {
	HTTP    *http.Client
	Timeout time.Duration
}

func (c Client) http() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}

func (c Client) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

// Error is a call that failed: the server, and what it said.
type Error struct {
	// Server names it: "Alertmanager http://...", "Prometheus http://...".
	Server string
	// Status is the HTTP status (0 when there was no answer).
	Status int
	// Message is the server's own message, or why there was none.
	Message string
}

func (e *Error) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("%s: %d %s: %s", e.Server, e.Status, http.StatusText(e.Status), e.Message)
	}
	return fmt.Sprintf("%s: %s", e.Server, e.Message)
}

// sortAlerts orders alerts by name, then labels, so that messages are
// stable.
func sortAlerts(as []Alert) {
	sort.SliceStable(as, func(i, j int) bool {
		if as[i].Name != as[j].Name {
			return as[i].Name < as[j].Name
		}
		return as[i].String() < as[j].String()
	})
}
