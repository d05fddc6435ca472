package promenv_test

import (
	"os"
	"regexp"
	"testing"

	"github.com/strata-fleet/strata/internal/testing/promenv"
)

func TestBuildScriptPinsVersions(t *testing.T) {
	script, err := os.ReadFile("../../../" + promenv.BuildScript)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"PROMETHEUS_VERSION":   promenv.PrometheusVersion,
		"ALERTMANAGER_VERSION": promenv.AlertmanagerVersion,
	} {
		m := regexp.MustCompile(`(?m)^` + name + `=(\S+)`).FindSubmatch(script)
		if m == nil {
			t.Errorf("%s: no %s= line", promenv.BuildScript, name)
		} else if got := string(m[1]); got != want {
			t.Errorf("%s pins %s=%s, package promenv says %s: change both together", promenv.BuildScript, name, got, want)
		}
	}
}
