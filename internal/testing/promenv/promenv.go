package promenv

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strata-fleet/strata/internal/testing/testenv"
)

// Versions of what the tests run; they must equal those of
// hack/build-prom.sh (a test checks that they do).
const (
	// Prometheus is Debian 12's; Alertmanager is built from its module.
	PrometheusVersion   = "2.42.0"
	AlertmanagerVersion = "v0.35.0"
)

// BuildScript builds the binaries into [DefaultBinDir].
const BuildScript = "hack/build-prom.sh"

// EnvBin names a directory holding prometheus and alertmanager.
const EnvBin = "STRATA_PROM_BIN"

// startTimeout bounds a server's start, up to its readiness.
const startTimeout = 2 * time.Minute

// DefaultBinDir returns where hack/build-prom.sh puts the binaries:
// <cache>/prometheus/<PrometheusVersion>-am-<AlertmanagerVersion>/bin.
func DefaultBinDir() (string, error) {
	cache, err := testenv.CacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(cache, "prometheus", PrometheusVersion+"-am-"+AlertmanagerVersion, "bin"), nil
}

// binary returns the path of the named binary, or ends the test: skipped
// under -short or when it is not built (naming the script), failed when
// it is there but broken.
func binary(t testing.TB, name string) string {
	t.Helper()
	if testing.Short() {
		t.Skipf("skipping under -short: starts a real %s (built by %s)", name, BuildScript)
	}
	dir := os.Getenv(EnvBin)
	if dir == "" {
		var err error
		if dir, err = DefaultBinDir(); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, name)
	switch err := testenv.Executable(path); {
	case errors.Is(err, testenv.ErrMissing):
		t.Skipf("skipping: %s is not built (run %s, or set %s to a directory holding it)", path, BuildScript, EnvBin)
	case err != nil:
		t.Fatalf("%s: %v", path, err)
	}
	return path
}

// Server is one running server.
type Server struct {
	// URL is its base address, http://127.0.0.1:PORT.
	URL     string
	Process *testenv.Process
}

// start runs the binary in dir on a free port, args being made from the
// listen address, and returns once it answers GET /-/ready with 200. A
// port taken between its choice and the bind makes it start again on
// another.
func start(t testing.TB, dir, name, path string, args func(addr string) []string) *Server {
	t.Helper()
	var err error
	for attempt := range 3 {
		var ports []int
		if ports, err = testenv.FreePorts(1); err != nil {
			break
		}
		addr := fmt.Sprintf("127.0.0.1:%d", ports[0])
		log := name
		if attempt > 0 {
			log = fmt.Sprintf("%s-%d", name, attempt)
		}
		var p *testenv.Process
		if p, err = testenv.StartProcess(t, dir, log, nil, path, args(addr)...); err != nil {
			break
		}
		s := &Server{URL: "http://" + addr, Process: p}
		if err = p.WaitReady(startTimeout, s.ready); err == nil {
			return s
		}
		p.Stop()
		if !strings.Contains(p.Tail(30), "address already in use") {
			break
		}
	}
	t.Fatalf("starting %s: %v", name, err)
	return nil
}

var client = &http.Client{Timeout: 10 * time.Second}

func (s *Server) ready() error {
	resp, err := client.Get(s.URL + "/-/ready")
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s/-/ready: %s", s.URL, resp.Status)
	}
	return nil
}

// writeFile writes a configuration file into dir.
func writeFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
