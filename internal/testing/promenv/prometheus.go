package promenv

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"
	"testing"
	"time"
)

// ScrapeInterval is how often the test Prometheus scrapes its targets and
// evaluates its rules.
const ScrapeInterval = time.Second

// Prometheus is a running Prometheus.
type Prometheus struct{ Server }

// StartPrometheus starts a Prometheus that scrapes targets (host:port,
// /metrics, job "test") every ScrapeInterval, and itself (job
// "prometheus"), its TSDB in the test's temporary directory.
func StartPrometheus(t testing.TB, targets ...string) *Prometheus {
	t.Helper()
	path := binary(t, "prometheus")
	dir := t.TempDir()
	quoted := make([]string, len(targets))
	for i, target := range targets {
		quoted[i] = fmt.Sprintf("%q", target)
	}
	s := start(t, dir, "prometheus", path, func(addr string) []string {
		config := fmt.Sprintf("global: {scrape_interval: %[1]s, evaluation_interval: %[1]s}\nscrape_configs:\n"+
			"  - {job_name: prometheus, static_configs: [{targets: [%[2]q]}]}\n", ScrapeInterval, addr)
		if len(targets) > 0 {
			config += fmt.Sprintf("  - {job_name: test, static_configs: [{targets: [%s]}]}\n", strings.Join(quoted, ", "))
		}
		file := writeFile(t, dir, "prometheus.yml", config)
		return []string{"--config.file=" + file, "--storage.tsdb.path=" + dir, "--web.listen-address=" + addr}
	})
	return &Prometheus{*s}
}

// WaitFor returns once query returns samples (the targets scraped, a
// metric at the value the test waits for), or fails the test after
// timeout with what the last answer said.
func (p *Prometheus) WaitFor(t testing.TB, query string, timeout time.Duration) {
	t.Helper()
	err := p.Process.WaitReady(timeout, func() error {
		n, err := p.samples(query)
		if err == nil && n == 0 {
			err = fmt.Errorf("no samples yet")
		}
		return err
	})
	if err != nil {
		t.Fatalf("waiting for %s on Prometheus %s: %v", query, p.URL, err)
	}
}

// samples runs an instant query and counts the samples of its vector.
func (p *Prometheus) samples(query string) (int, error) {
	resp, err := client.Get(p.URL + "/api/v1/query?" + url.Values{"query": {query}}.Encode())
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var answer struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []json.RawMessage `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &answer); err != nil {
		return 0, fmt.Errorf("%s: %q", resp.Status, body)
	}
	if answer.Status != "success" {
		return 0, fmt.Errorf("%s: %s", resp.Status, answer.Error)
	}
	return len(answer.Data.Result), nil
}
