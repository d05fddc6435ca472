package promenv

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"
)

// Alertmanager is a running Alertmanager.
type Alertmanager struct{ Server }

// StartAlertmanager starts an Alertmanager that routes every alert to a
// receiver that sends nothing, without a cluster (no gossip port), its
// data in the test's temporary directory.
func StartAlertmanager(t testing.TB) *Alertmanager {
	t.Helper()
	path := binary(t, "alertmanager")
	dir := t.TempDir()
	config := writeFile(t, dir, "alertmanager.yml", "route: {receiver: none}\nreceivers: [{name: none}]\n")
	s := start(t, dir, "alertmanager", path, func(addr string) []string {
		return []string{"--config.file=" + config, "--storage.path=" + dir, "--cluster.listen-address=", "--web.listen-address=" + addr}
	})
	return &Alertmanager{*s}
}

// Alert is an alert as a Prometheus sends it (postableAlert of the API
// v2): labels name it, annotations describe it.
type Alert struct {
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// Fire posts alerts (POST /api/v2/alerts): they fire from now until
// Alertmanager's resolve timeout (5m) passes without them being posted
// again.
func (a *Alertmanager) Fire(t testing.TB, alerts ...Alert) {
	t.Helper()
	a.post(t, "/api/v2/alerts", alerts, nil)
}

// Silence silences, for an hour, the alerts whose labels equal matchers
// (POST /api/v2/silences), and returns the silence's ID.
func (a *Alertmanager) Silence(t testing.TB, matchers map[string]string) string {
	t.Helper()
	type matcher struct {
		Name    string `json:"name"`
		Value   string `json:"value"`
		IsRegex bool   `json:"isRegex"`
		IsEqual bool   `json:"isEqual"`
	}
	s := struct {
		Matchers  []matcher `json:"matchers"`
		StartsAt  time.Time `json:"startsAt"`
		EndsAt    time.Time `json:"endsAt"`
		CreatedBy string    `json:"createdBy"`
		Comment   string    `json:"comment"`
	}{StartsAt: time.Now().UTC(), EndsAt: time.Now().UTC().Add(time.Hour), CreatedBy: "strata tests", Comment: t.Name()}
	for k, v := range matchers {
		s.Matchers = append(s.Matchers, matcher{Name: k, Value: v, IsEqual: true})
	}
	var created struct {
		ID string `json:"silenceID"`
	}
	a.post(t, "/api/v2/silences", s, &created)
	return created.ID
}

// post POSTs v as JSON and decodes a 200 answer into out (when not nil).
func (a *Alertmanager) post(t testing.TB, path string, v, out any) {
	t.Helper()
	body, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Post(a.URL+path, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s%s: %v", a.URL, path, err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s%s: %s: %s", a.URL, path, resp.Status, answer)
	}
	if out != nil {
		if err := json.Unmarshal(answer, out); err != nil {
			t.Fatalf("POST %s%s: %v", a.URL, path, fmt.Errorf("reading the answer %q: %w", answer, err))
		}
	}
}
