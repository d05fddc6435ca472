package testenv

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"k8s.io/client-go/rest"
)

// consistentReadMetric counts the consistent lists (no resourceVersion) that
// the API server tried to serve from its watch cache, by resource, whether
// they succeeded, and whether they fell back to etcd. Lists it sends to etcd
// directly, as it does when etcd cannot tell it how fresh the cache is
// (etcd before 3.5.13), are not counted at all.
const consistentReadMetric = "apiserver_watch_cache_consistent_read_total"

// ConsistentReads counts an API server's consistent lists of one resource,
// as its metrics tell them.
type ConsistentReads struct {
	// FromCache were served from the watch cache.
	FromCache int
	// Fallback were tried from the cache, which was not fresh in time, and
	// read from etcd.
	Fallback int
	// Failed ended in an error.
	Failed int
}

// ReadConsistentReads reads the API server's /metrics and returns its
// consistent lists of group/resource ("" is the core group).
func ReadConsistentReads(ctx context.Context, cfg *rest.Config, group, resource string) (ConsistentReads, error) {
	var n ConsistentReads
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return n, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(cfg.Host, "/")+"/metrics", nil)
	if err != nil {
		return n, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return n, fmt.Errorf("reading the API server's metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return n, fmt.Errorf("reading the API server's metrics: GET /metrics: %s", resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return n, fmt.Errorf("reading the API server's metrics: %w", err)
	}
	for _, m := range families[consistentReadMetric].GetMetric() {
		l := labels(m)
		if l["group"] != group || l["resource"] != resource {
			continue
		}
		count := int(m.GetCounter().GetValue())
		switch {
		case l["success"] != "true":
			n.Failed += count
		case l["fallback"] == "true":
			n.Fallback += count
		default:
			n.FromCache += count
		}
	}
	return n, nil
}

func labels(m *dto.Metric) map[string]string {
	l := map[string]string{}
	for _, p := range m.GetLabel() {
		l[p.GetName()] = p.GetValue()
	}
	return l
}

// String says it as a line of a test's log.
func (n ConsistentReads) String() string {
	parts := []string{fmt.Sprintf("%d from the watch cache", n.FromCache)}
	if n.Fallback > 0 {
		parts = append(parts, fmt.Sprintf("%d fell back to etcd", n.Fallback))
	}
	if n.Failed > 0 {
		parts = append(parts, fmt.Sprintf("%d failed", n.Failed))
	}
	return strings.Join(parts, ", ")
}
