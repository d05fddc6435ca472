package alert_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strata-fleet/strata/internal/alert"
	"github.com/strata-fleet/strata/internal/testenv"
)

// The tests below run the clients against a real Alertmanager and a real
// Prometheus, as hack/build-prom.sh builds them from their Go modules; they
// are skipped where the binaries are not built (test-deps.sh does not build
// them yet).

// promBin is where hack/build-prom.sh puts the binaries; its versions must
// equal the script's.
func promBin(t *testing.T) string {
	if testing.Short() {
		t.Skip("starts Prometheus and Alertmanager")
	}
	cache, err := testenv.CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(cache, "prometheus", "v0.316.0-am-v0.35.0", "bin")
	for _, b := range []string{"prometheus", "alertmanager"} {
		if err := testenv.Executable(filepath.Join(bin, b)); err != nil {
			t.Skipf("%s/%s: %v (build it with hack/build-prom.sh)", bin, b, err)
		}
	}
	return bin
}

// serve starts a server binary with args (one of them holding PORT) on a
// free port of 127.0.0.1 and returns its URL once it says it is ready
// (GET /-/ready answers 200), within a deadline.
func serve(t *testing.T, binary string, args ...string) string {
	t.Helper()
	ports, err := testenv.FreePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", ports[0])
	for i := range args {
		args[i] = strings.ReplaceAll(args[i], "PORT", fmt.Sprint(ports[0]))
	}
	var log bytes.Buffer
	cmd := exec.Command(binary, append(args, "--web.listen-address="+addr)...)
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	url := "http://" + addr
	deadline := time.After(time.Minute)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if resp, err := http.Get(url + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url
			}
		}
		select {
		case err := <-exited:
			t.Fatalf("%s exited: %v\n%s", binary, err, log.String())
		case <-deadline:
			t.Fatalf("%s is not ready after a minute\n%s", binary, log.String())
		case <-tick.C:
		}
	}
}

func post(t *testing.T, url, body string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %s", url, resp.Status)
	}
}

func TestRealAlertmanager(t *testing.T) {
	bin := promBin(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "alertmanager.yml")
	if err := os.WriteFile(config, []byte("route: {receiver: none}\nreceivers: [{name: none}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	am := serve(t, filepath.Join(bin, "alertmanager"), "--config.file="+config, "--storage.path="+dir, "--cluster.listen-address=")
	now := time.Now().UTC()
	post(t, am+"/api/v2/silences", fmt.Sprintf(`{"matchers":[{"name":"alertname","value":"Silenced","isRegex":false}],
		"startsAt":%q,"endsAt":%q,"createdBy":"strata","comment":"test"}`, now.Format(time.RFC3339), now.Add(time.Hour).Format(time.RFC3339)))
	post(t, am+"/api/v2/alerts", `[
		{"labels":{"alertname":"HighErrorRate","severity":"critical","cluster":"w1"},"annotations":{"summary":"5xx above 1%"}},
		{"labels":{"alertname":"Silenced","severity":"critical"}},
		{"labels":{"alertname":"Minor","severity":"warning"}}]`)

	got, err := alert.Client{}.Firing(context.Background(), am, []string{`severity="critical"`})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].String() != `HighErrorRate{cluster="w1", severity="critical"}: 5xx above 1%` {
		t.Errorf("firing: %v, want HighErrorRate alone (Silenced is silenced, Minor does not match)", got)
	}
	if _, err := (alert.Client{}).Firing(context.Background(), am, []string{"severity"}); err == nil || !strings.Contains(err.Error(), ": 400 Bad Request: ") {
		t.Errorf("a bad matcher: %v, want Alertmanager's 400 and message", err)
	}
}

func TestRealPrometheus(t *testing.T) {
	bin := promBin(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(config, []byte("global: {scrape_interval: 1s}\nscrape_configs: [{job_name: self, static_configs: [{targets: ['127.0.0.1:PORT']}]}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	prom := serve(t, filepath.Join(bin, "prometheus"), "--config.file="+config, "--storage.tsdb.path="+dir)
	ctx := context.Background()
	tests := []struct {
		query, want, err string
	}{
		{query: `label_replace(vector(2), "cluster", "w1", "", "")`, want: `{cluster="w1"} = 2`},
		{query: `vector(1) > 2`},
		{query: `scalar(vector(3))`, want: "scalar = 3"},
		{query: `up[5m]`, err: "returns a matrix, not an instant vector"},
		{query: `sum(`, err: "bad_data: invalid parameter \"query\""},
	}
	for _, tt := range tests {
		got, err := alert.Client{}.Query(ctx, prom, tt.query)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: %v, want an error with %q", tt.query, err, tt.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tt.query, err)
		case alert.Describe(got) != tt.want:
			t.Errorf("%s: %q, want %q", tt.query, alert.Describe(got), tt.want)
		}
	}
}
